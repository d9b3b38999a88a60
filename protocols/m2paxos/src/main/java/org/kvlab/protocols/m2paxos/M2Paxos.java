package org.kvlab.protocols.m2paxos;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * The M²Paxos plug-in (Turcu's thesis ch. 10-11; DSN 2016): full replication over the datacenters, one server each,
 * every object (key) with its own Paxos instances and an owner. With {@code leader=<dc>} one datacenter owns every
 * object from the start and no other acquires: Multi-Paxos with forwarding, the paper's degenerate configuration.
 */
public final class M2Paxos extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(CommandRequest.class, CommandReply.class, Propose.class,
      Accept.class, AcceptAck.class, Decide.class, Prepare.class, PrepareAck.class, Status.class, Fetch.class,
      FetchReply.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getInstance()));
  static final List<String> INITIAL_OWNERS = List.of("hash", "none");

  public M2Paxos() {
    super("m2paxos",
        "M²Paxos: per-key Paxos instances with an owner per key (2 delays at the owner, 3 forwarded, acquisition"
            + " otherwise); full replication over the datacenters; leader=<dc> makes it Multi-Paxos; linearizable,"
            + " multi-key transactions strictly serializable",
        MESSAGES, RECORD, M2PaxosServer::new, M2PaxosClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("initialOwner", "hash or none, default hash: who owns a key before anyone acquired it; hash = datacenter"
        + " hash(key) mod N (first access 2 or 3 message delays), none = nobody (the paper: the first access"
        + " acquires)");
    p.put("leader", "a datacenter number or none, default none: if set, that datacenter owns every key from the start"
        + " and no other acquires; the others forward to it (Multi-Paxos)");
    p.put("forwardTimeout", "duration, default 1s: how long a command forwarded to its owner may take to be delivered"
        + " here before this server proposes it itself (acquires; with leader set: forwards again)");
    p.put("backoff", "duration, default 20ms: the mean of the random wait before an acquisition refused by a higher"
        + " epoch is retried");
    p.put("gossip", "duration, default 100ms: how often a server tells the others how far it delivered each key"
        + " (catch-up of missed decisions, truncation of the instances every server delivered)");
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
    TopologyException.requireFullReplication("m2paxos", topology);
    String initial = params.string("initialOwner", "hash");
    if (!INITIAL_OWNERS.contains(initial)) {
      throw ParameterException.notOneOf("initialOwner", initial, INITIAL_OWNERS);
    }
    leader(params, topology);
    ParameterException.requireDuration(params, "forwardTimeout", Duration.ofSeconds(1), false);
    ParameterException.requireDuration(params, "backoff", Duration.ofMillis(20), false);
    ParameterException.requireDuration(params, "gossip", Duration.ofMillis(100), false);
  }

  /** The Multi-Paxos leader's datacenter, or -1 for M²Paxos. */
  static int leader(Params params, Topology topology) {
    String v = params.string("leader", "none");
    if (v.equals("none")) {
      return -1;
    }
    int dc;
    try {
      dc = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      dc = -1;
    }
    if (dc < 0 || dc >= topology.datacenters()) {
      throw new ParameterException("leader", "'" + v + "' is not none or a datacenter from 0 to "
          + (topology.datacenters() - 1), "write none (M²Paxos) or e.g. leader: 0 (Multi-Paxos led by datacenter 0)");
    }
    return dc;
  }
}
