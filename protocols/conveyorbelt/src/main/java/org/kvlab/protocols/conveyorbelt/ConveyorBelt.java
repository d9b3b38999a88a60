package org.kvlab.protocols.conveyorbelt;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.RecordType;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.api.VersionKey;
import org.kvlab.command.CommandReply;
import org.kvlab.command.CommandRequest;

/**
 * The Conveyor Belt plug-in (seed 004: Eliá, Saissi, Serafini, Suri, "Scaling Out ACID Applications with Operation
 * Partitioning", Alg. 2) over the classification of an operations file (Alg. 1): one server per datacenter, each
 * with a full copy; commutative and local operations executed at once at their server, global ones under a token
 * circulating the ring of the servers. Serializable. {@link ConveyorBeltServer} names every choice where the seed
 * is silent.
 */
public final class ConveyorBelt extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(CommandRequest.class, CommandReply.class, Token.class,
      TokenAck.class, Parked.class, Want.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getVersion()));
  static final List<String> ROUTING = List.of("client", "server");

  public ConveyorBelt() {
    this(ConveyorBeltServer::new);
  }

  /** With servers of another make (the tests' mutants). */
  ConveyorBelt(Supplier<? extends ConveyorBeltServer> servers) {
    super("conveyorbelt",
        "Conveyor Belt (Eliá): operations classified by an operations file (Alg. 1) into commutative, local (at once,"
            + " at the server their partitioning parameter routes to) and global (under a token circulating the ring,"
            + " updates carried to every server); full copies; serializable",
        MESSAGES, RECORD, servers, ConveyorBeltClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("operations", "store, micro, none or a path, default store: the operations file classified by Alg. 1 (store ="
        + " the online store of examples/operations/online-store.yaml, micro = examples/operations/micro.yaml, none ="
        + " every operation global); a procedure's arguments bind its type's parameters in order");
    p.put("serviceMicros", "a whole number >= 0, default 0: the time every operation takes at its server, executed"
        + " one at a time in arrival order (the seed's micro-benchmark: 5000); 0 = no service time");
    p.put("routing", "client or server, default client: clients send each operation to the server its partitioning"
        + " parameter routes to; server = to their datacenter's server, which redirects (forwards) it");
    p.put("handOffRetry", "duration, default 500ms: how often a token not acknowledged by the next server is resent");
    p.put("wakeRetry", "duration, default 200ms: how often a server with global operations queued asks for the"
        + " paused token again");
    return p;
  }

  @Override
  public Topology defaultTopology() {
    return new Topology(3, 1);
  }

  @Override
  public void checkParameters(Params params, Topology topology) {
    check(params, topology);
  }

  /** {@link #checkParameters}, also run by every server at start. */
  static void check(Params params, Topology topology) {
    TopologyException.requireFullReplication("conveyorbelt", topology);
    Classification.load(params.string("operations", "store"));
    if (params.longValue("serviceMicros", 0) < 0) {
      throw new ParameterException("serviceMicros", params.string("serviceMicros", "") + " is negative",
          "write 0 (no service time) or the microseconds an operation takes, e.g. 5000");
    }
    String routing = params.string("routing", "client");
    if (!ROUTING.contains(routing)) {
      throw ParameterException.notOneOf("routing", routing, ROUTING);
    }
    ParameterException.requireDuration(params, "handOffRetry", Duration.ofMillis(500), false);
    ParameterException.requireDuration(params, "wakeRetry", Duration.ofMillis(200), false);
  }
}
