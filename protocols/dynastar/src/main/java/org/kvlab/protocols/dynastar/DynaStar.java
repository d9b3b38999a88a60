package org.kvlab.protocols.dynastar;

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
import org.kvlab.consensus.multicast.proto.CastReply;
import org.kvlab.consensus.multicast.proto.CastSend;
import org.kvlab.consensus.multicast.proto.SkeenData;
import org.kvlab.consensus.multicast.proto.SkeenVote;
import org.kvlab.consensus.raft.Raft;
import org.kvlab.partitioning.Partitioners;

/**
 * DynaStar (Le et al. 2018, seed 002): partitioned state machine replication that repartitions itself. The last
 * partition of the topology is the oracle (location map, workload graph, plans); the others hold the variables. A
 * command executes at one partition; the others lend it their variables and get them back. Every few seconds the
 * oracle partitions the workload graph (METIS or the pure-Java partitioner, 20% imbalance) and multicasts a plan that
 * the partitions apply by exchanging variables. See {@link PartitionRole}, {@link OracleRole} and
 * docs/protocols.md#dynastar. The topology decides whether partitions (and the oracle) are one server each or Raft
 * groups of replicas ({@link Groups}).
 */
public final class DynaStar extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(ExecReq.class, ExecReply.class, LocateReq.class,
      LocateReply.class, SkeenData.class, SkeenVote.class, Lend.class, Return.class, Move.class, Hint.class,
      CastSend.class, CastReply.class, Raft.class);
  static final RecordType<Record> RECORD = RecordType.of(Record.class, r -> VersionKey.of(r.getVer()));

  static final List<String> MUTANTS = List.of("none", "lender-no-wait", "client-destination");
  /** METIS's and the seed's imbalance: a partition's load at most 20% over the mean. */
  static final double IMBALANCE = 1.2;

  public DynaStar() {
    super("dynastar", "DynaStar: partitions that lend their variables to one destination per multi-partition command,"
        + " an oracle (the last partition) that locates variables and repartitions the workload graph with METIS",
        MESSAGES, RECORD, DynaStarServer::new, DynaStarClient::new);
  }

  @Override
  public Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("placement", "hash | random | file:<path>, default hash: where variables start (a file holds"
        + " key<TAB>partition lines as kvlab advise-placement --output writes; keys it does not name go by hash)");
    p.put("repartitionEvery", "duration, default 5s: how often the oracle partitions the workload graph and, if the"
        + " plan moves anything, multicasts it; 0 = never");
    p.put("partitioner", "auto | metis | greedy, default auto: METIS (gpmetis) where installed, else the pure-Java"
        + " partitioner");
    p.put("planGain", "percent, default 10: the oracle multicasts a plan only when its edge cut is at least this much"
        + " below the current placement's; 0 = whenever it moves anything");
    p.put("hintEvery", "duration, default 100ms: how often a partition sends the oracle the keys of the commands it"
        + " executed");
    p.put("maxRetries", "whole number, default 8: a client's tries of one command through the oracle after a wrong"
        + " partition, before it reports a failure");
    p.put("mutant", "none | lender-no-wait | client-destination, default none: a deliberately broken variant for"
        + " tests (a lender that goes on without its variables' return; a client whose destination rule sends ties to"
        + " the highest partition)");
    return p;
  }

  /** One datacenter, 3 data partitions and the oracle. */
  /** The data partitions: every partition but the last, the oracle. */
  @Override
  public int placementParts(int partitions) {
    return partitions - 1;
  }

  @Override
  public Topology defaultTopology() {
    return new Topology(1, 4);
  }

  @Override
  public void checkParameters(Params params, Topology topology) {
    check(params, topology);
  }

  /** Every rule on the parameters and the cluster shape: the loaders call it, and every server when it starts. */
  static void check(Params params, Topology topology) {
    if (topology.datacenters() > 1 && topology.replicas() > 1) {
      throw new TopologyException("replicas", topology.datacenters() + " datacenters and " + topology.replicas()
          + " replicas per partition, but dynastar replicates a partition either inside 1 datacenter or across"
          + " datacenters, one replica in each", "set replicas: 1 (replica d of every partition in datacenter d) or"
          + " datacenters: 1 (see docs/protocols.md#dynastar)");
    }
    if (Groups.size(topology) == 2) {
      throw new TopologyException(topology.datacenters() == 2 ? "datacenters" : "replicas", "2 replicas per"
          + " partition, but a Raft group of 2 survives no crash", "set 3 (or 1: one server per partition that"
          + " recovers from its durable state; see docs/protocols.md#dynastar)");
    }
    if (topology.partitions() < 2) {
      throw new TopologyException("partitions", topology.partitions() + " partition, but dynastar needs at least 2:"
          + " one or more data partitions and the oracle (the last)", "set partitions: 4 (3 data partitions and the"
          + " oracle)");
    }
    InitialPlacement.parse(params.string("placement", "hash"), topology.partitions() - 1);
    ParameterException.requireDuration(params, "repartitionEvery", Duration.ofSeconds(5), true);
    ParameterException.requireDuration(params, "hintEvery", Duration.ofMillis(100), false);
    String partitioner = params.string("partitioner", "auto");
    if (!Partitioners.NAMES.contains(partitioner)) {
      throw ParameterException.notOneOf("partitioner", partitioner, Partitioners.NAMES);
    }
    int gain = params.intValue("planGain", 10);
    if (gain < 0 || gain > 100) {
      throw new ParameterException("planGain", gain + " is not a percentage from 0 to 100", "write e.g. 10");
    }
    if (params.intValue("maxRetries", 8) < 1) {
      throw new ParameterException("maxRetries", "'" + params.string("maxRetries", "") + "' is less than 1",
          "write 1 or more, e.g. 8");
    }
    String mutant = params.string("mutant", "none");
    if (!MUTANTS.contains(mutant)) {
      throw ParameterException.notOneOf("mutant", mutant, MUTANTS);
    }
  }

  /** The oracle's partition: the topology's last. */
  static int oracle(Topology topology) {
    return topology.partitions() - 1;
  }
}
