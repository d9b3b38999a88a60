package org.kvlab.protocols.epaxos;

import java.time.Duration;
import java.util.LinkedHashMap;
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
 * The EPaxos plug-in (Moraru et al., SOSP 2013): leaderless state-machine replication over N replicas, one per
 * datacenter; linearizable GET and PUT and strictly serializable multi-key commands (docs/protocols.md#epaxos).
 */
public final class EPaxos extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(CommandRequest.class, CommandReply.class, PreAccept.class,
      PreAcceptReply.class, Accept.class, AcceptReply.class, Commit.class, Prepare.class, PrepareReply.class,
      Executed.class);
  /** Versions are the executing replica's own execution counter: every replica applies a key's writes in one order. */
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getExec()));
  static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(1);
  static final Duration GOSSIP = Duration.ofMillis(100);
  /** The tick's period while the cluster is idle (the framework's back-off), and how long until it is. */
  static final Duration IDLE = Duration.ofSeconds(1);

  public EPaxos() {
    super("epaxos",
        "Egalitarian Paxos: every replica (one per datacenter) leads its own instances; a command commits in two"
            + " message delays when a fast quorum agrees on its dependencies, else after an Accept round; replicas"
            + " execute the dependency graph's components in order (linearizable, multi-key commands)",
        MESSAGES, RECORD, EPaxosServer::new, EPaxosClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("thrifty", "true | false, default false: a command leader sends PreAccept only to the fast quorum's other"
        + " members (then to all if they do not all answer) instead of to every replica");
    p.put("recoveryTimeout", "duration, default 1s: a replica that has waited this long (plus a random share of it)"
        + " for an instance to commit runs Explicit Prepare on it with a higher ballot");
    p.put("gossip", "duration, default 100ms: the period of a replica's tick, which tells the others what it executed"
        + " (when it changed, and every tenth tick), so that instances every replica executed are removed from the"
        + " durable instance map, and starts the recoveries due; 1s while the cluster is idle");
    return p;
  }

  @Override
  public Topology defaultTopology() {
    return new Topology(3, 1);
  }

  /** One partition (full replication: the replicas are the datacenters); positive durations. */
  @Override
  public void checkParameters(Params params, Topology topology) {
    TopologyException.requireFullReplication("epaxos", topology);
    ParameterException.requireDuration(params, "recoveryTimeout", RECOVERY_TIMEOUT, false);
    ParameterException.requireDuration(params, "gossip", GOSSIP, false);
    params.bool("thrifty", false);
  }
}
