package org.kvlab.protocols.dynastar;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.kvlab.api.Client;
import org.kvlab.api.NodeId;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.consensus.multicast.MulticastLog;

/**
 * DynaStar with its data partitions watched from outside (the simulator runs every node on one thread): the last
 * incarnation of each partition, to check the location invariant over all of them once the run is quiet. One instance
 * per simulated run. Also records the multicast (commands and plans) for the consensus module's multicast checker.
 * Replicated partitions: every replica's last incarnation, and each group's delivery sequence as its replicas apply
 * it (a replica that applies another message at a position than its group did is a disagreement); a multicast is
 * recorded at its first delivery anywhere, with the destinations its content names (commands: their locations'
 * partitions; plans: all; lends, returns, moves: sender and receiver), since the block assigns its id at commit.
 */
final class Watched implements Protocol {
  private final DynaStar inner = new DynaStar();
  /** partition -> its server (the last incarnation). */
  final Map<Integer, PartitionRole> live = new TreeMap<>();
  /** Every multicast (commands by their destination, plans by the oracle) and every group's deliveries. */
  final MulticastLog log = new MulticastLog();
  /** Replicated partitions: every replica's last incarnation, by node. */
  final Map<NodeId, PartitionRole> replicas = new TreeMap<>();
  /** Replicated: each group's delivery sequence (the longest any replica applied) and the replicas' disagreements. */
  private final Map<Integer, List<Long>> sequences = new TreeMap<>();
  private final Set<Long> seen = new HashSet<>();
  final List<String> disagreements = new ArrayList<>();
  private final GroupReplica.Observer observer = this::delivered;

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public String summary() {
    return inner.summary();
  }

  @Override
  public MessageTypes messages() {
    return inner.messages();
  }

  @Override
  public RecordType<? extends Message> record() {
    return inner.record();
  }

  @Override
  public Server<? extends Message> newServer() {
    return new DynaStarServer() {
      @Override
      PartitionRole newPartition() {
        PartitionRole p = super.newPartition();
        p.observed = log;
        p.watch = observer;
        live.put(p.partition(), p);
        replicas.put(self(), p);
        return p;
      }

      @Override
      OracleRole newOracle() {
        OracleRole o = super.newOracle();
        o.observed = log;
        o.watch = observer;
        return o;
      }
    };
  }

  @Override
  public Client newClient() {
    return inner.newClient();
  }

  @Override
  public Map<String, String> parameters() {
    return inner.parameters();
  }

  @Override
  public void checkParameters(org.kvlab.api.Params params, org.kvlab.api.Topology topology) {
    inner.checkParameters(params, topology);
  }

  /**
   * The location invariant once every partition is quiet (nothing queued, lent, awaited or in flight): every key is
   * held by exactly one partition. Returns the violations (empty if none), or null if some partition is not quiet.
   */
  List<String> locationViolations(List<String> keys) {
    if (!replicas.isEmpty() && replicas.values().iterator().next().position() >= 0) {
      return replicatedViolations(keys);
    }
    if (live.values().stream().anyMatch(p -> !p.quiescent())) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      List<Integer> holders = new ArrayList<>();
      live.forEach((p, role) -> {
        if (role.holds(k)) {
          holders.add(p);
        }
      });
      if (holders.size() != 1) {
        out.add(k + " held by " + holders);
      }
    }
    return out;
  }

  /**
   * Replicated partitions: quiet once, in every group, the replicas that applied the group's whole delivery sequence
   * are quiet; then those replicas must have equal states (the whole state machine: values, holders, queue, kept
   * replies), agree on every key, and every key be held by exactly one group.
   */
  private List<String> replicatedViolations(List<String> keys) {
    Map<NodeId, PartitionRole> current = new TreeMap<>();
    Set<Integer> groups = new TreeSet<>();
    boolean quiet = true;
    for (Map.Entry<NodeId, PartitionRole> e : replicas.entrySet()) {
      PartitionRole p = e.getValue();
      if (p.position() == sequences.getOrDefault(p.partition(), List.of()).size()) {
        quiet &= p.quiescent();
        current.put(e.getKey(), p);
        groups.add(p.partition());
      }
    }
    if (!quiet || groups.size() != live.size()) {
      return null;
    }
    List<String> out = new ArrayList<>();
    Map<Integer, ReplicaState> first = new TreeMap<>();
    current.forEach((n, role) -> {
      ReplicaState state = state(role);
      ReplicaState other = first.putIfAbsent(n.partition(), state);
      if (other != null && !other.equals(state)) {
        out.add(n + ": its state differs from that of another caught-up replica of partition " + n.partition());
      }
    });
    for (String k : keys) {
      Map<Integer, Set<Boolean>> says = new TreeMap<>();
      current.forEach((n, role) -> says.computeIfAbsent(n.partition(), x -> new HashSet<>()).add(role.holds(k)));
      List<Integer> holders = new ArrayList<>();
      says.forEach((p, v) -> {
        if (v.size() != 1) {
          out.add(k + ": the replicas of partition " + p + " disagree on holding it");
        } else if (v.contains(true)) {
          holders.add(p);
        }
      });
      if (holders.size() != 1) {
        out.add(k + " held by " + holders);
      }
    }
    return out;
  }

  private static ReplicaState state(PartitionRole role) {
    try {
      return ReplicaState.parseFrom(role.snapshot());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A replica applied delivery {@code position} of its group: the group's sequence takes it (or it must match what
   * another replica applied there), and the multicast is recorded for the checker at its first delivery anywhere,
   * with the destinations its content names (so the checker's integrity does not see a multicast recorded apart).
   */
  private void delivered(int group, NodeId replica, long position, long id, Cast c) {
    List<Long> seq = sequences.computeIfAbsent(group, g -> new ArrayList<>());
    if (position <= seq.size()) {
      if (seq.get((int) position - 1) != id) {
        disagreements.add(replica + " delivers " + id + " at position " + position + ", its group delivered "
            + seq.get((int) position - 1) + " there");
      }
      return;
    }
    if (position != seq.size() + 1) {
      disagreements.add(replica + " delivers " + id + " at position " + position + " after " + seq.size());
      return;
    }
    seq.add(id);
    if (seen.add(id)) {
      log.multicast((int) (id >>> 40), id, destinations(c));
    }
    log.delivered(group, id);
  }

  private Set<Integer> destinations(Cast c) {
    Set<Integer> out = new TreeSet<>();
    switch (c.getWhatCase()) {
      case CMD -> out.addAll(c.getCmd().getLocsMap().values());
      case PLAN -> {
        for (int g = 0; g <= live.size(); g++) { // every data partition and the oracle
          out.add(g);
        }
      }
      default -> {
        out.add(c.getFrom());
        out.add(c.getTo());
      }
    }
    return out;
  }
}
