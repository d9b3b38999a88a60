package org.kvlab.protocols.dynastar;

import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Slot;
import org.kvlab.api.SlotMap;
import org.kvlab.consensus.multicast.MulticastLog;
import org.kvlab.consensus.multicast.SkeenMulticast;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.partitioning.Partitioner;
import org.kvlab.partitioning.Partitioners;
import org.kvlab.partitioning.Placement;
import org.kvlab.partitioning.WorkloadGraph;

/**
 * The DynaStar oracle (the seed's Algorithm 2), a member of the multicast like the partitions: it holds the location
 * map (the initial placement plus every plan it delivered), answers clients where keys live, builds the workload
 * graph from the partitions' hints (the keys of each executed command: +1 to each key, +1 to each pair), and every
 * {@code repartitionEvery} partitions it ({@link Partitioner}, 20% imbalance), relabels the parts to keep as many
 * variables in place as possible, and multicasts the variables that change partition as a {@link Plan} to every
 * partition and itself. It multicasts the next plan only once it delivered the last, so each plan is computed from a
 * location map that includes every earlier plan; the plan's place among the commands is the multicast's order (the
 * seed's plan ids, decided by the first replica to finish, are not needed with one oracle server).
 *
 * <p>Decided: a client's query is answered with locations and the client sends the command itself, where the seed's
 * oracle multicasts the command for the client (one message delay more on a cache miss; a command has one path and
 * one origin, the partition that answers it). Creation is implicit: a variable nobody moved lives at its initial
 * placement, which every server computes, so its first access creates it there; the oracle's map holds only the
 * variables plans moved. Crash recovery: the Skeen member, the plan counters and the map are durable (slot, durable
 * map); the workload graph is soft state rebuilt from later hints.
 *
 * <p>Replicated (the oracle "as a replicated partition", {@link Groups}): the oracle is a Raft group
 * ({@link GroupReplica}); every replica applies the delivered plans to its location map (in memory and in the
 * group's snapshots), answers location queries from it (a lagging replica's stale answer costs the client a retry,
 * never a wrong execution: the partitions check every location), and keeps a workload graph from the hints, which
 * the partitions' leaders send to every oracle replica. Only the leader repartitions and multicasts plans; a new
 * leader may multicast a plan number the old one multicast too, and every group applies the first of a number it
 * delivers (the seed's plan ids: one plan per id, the first to arrive).
 */
final class OracleRole implements GroupReplica.Machine {
  private final ServerContext ctx;
  private final int me;
  private final int parts;
  private InitialPlacement placement;
  private Partitioner partitioner;
  private int planGain;
  private SkeenMulticast<Cast> skeen;
  private Slot<OracleState> slot;
  private SlotMap<Loc> loc;
  private long issued;
  private long applied;
  private final WorkloadGraph graph = new WorkloadGraph();
  /** Whether a partitioning is being computed off the loop ({@link #repartition}). */
  private boolean computing;
  /** Tests: where the oracle records its multicasts and deliveries (null: nowhere). */
  MulticastLog observed;
  /** Tests, replicated: sees every delivery at every replica. */
  GroupReplica.Observer watch;
  /** Replicated: the oracle group's replica (null: one oracle server) and its location map. */
  private GroupReplica rep;
  private final TreeMap<String, Integer> locHere = new TreeMap<>();
  private int waited; // replicated: rounds the last plan has been in flight

  OracleRole(ServerContext ctx) {
    this.ctx = ctx;
    this.me = ctx.self().partition();
    this.parts = me;
  }

  void register(Handlers on) {
    on.message(Hint.class, (m, from) -> m.getCmdsList().forEach(k -> graph.addTransaction(k.getKeysList())));
    on.request(LocateReq.class, this::onLocate);
    if (Groups.replicated(ctx.topology())) {
      rep = new GroupReplica(ctx, this);
      rep.register(on);
      return;
    }
    skeen = new SkeenMulticast<>(me, Cast.parser(), (g, m) -> ctx.send(NodeId.of(0, g), m),
        (id, c, ts) -> {
          if (observed != null) {
            observed.delivered(me, id);
          }
          delivered(c);
        });
    skeen.register(on, this::turn);
  }

  void start() {
    placement = InitialPlacement.parse(ctx.params().string("placement", "hash"), parts);
    partitioner = Partitioners.byName(ctx.params().string("partitioner", "auto"));
    planGain = ctx.params().intValue("planGain", 10);
    Duration every = ctx.params().duration("repartitionEvery", Duration.ofSeconds(5));
    if (rep != null) {
      rep.observer = watch;
      rep.start();
      if (!every.isZero()) {
        ctx.every(every, () -> {
          if (!rep.isLeader() || (issued != applied && ++waited >= 5)) {
            issued = applied; // a new leader (or one whose plan got lost) starts from the plans its group delivered
          }
          if (issued == applied) {
            waited = 0;
          }
          if (rep.isLeader()) {
            repartition();
          }
        });
      }
      return;
    }
    loc = ctx.slotMap("loc", Loc.getDefaultInstance());
    slot = ctx.slot(OracleState.getDefaultInstance());
    OracleState s = slot.get();
    try {
      skeen.restore(SkeenState.parseFrom(s.getSkeen()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("dynastar: the oracle cannot read its saved multicast state (" + e.getMessage()
          + "). Fix: start from an empty data directory", e);
    }
    issued = s.getIssued();
    applied = s.getApplied();
    if (!every.isZero()) {
      ctx.every(every, () -> turn(this::repartition));
    }
  }

  long applied() {
    return applied;
  }

  private void turn(Runnable event) {
    event.run();
    if (rep != null) {
      return;
    }
    slot.set(OracleState.newBuilder().setSkeen(skeen.state().toByteString()).setIssued(issued).setApplied(applied)
        .build());
  }

  private int location(String key) {
    if (rep != null) {
      return locHere.getOrDefault(key, placement.of(key));
    }
    Loc l = loc.get(key);
    return l != null ? l.getPartition() : placement.of(key);
  }

  private void onLocate(Request<LocateReq> req) {
    ctx.metrics().count("dynastar.oracleQueries");
    LocateReply.Builder r = LocateReply.newBuilder().setPlan(applied);
    for (String k : req.body().getKeysList()) {
      r.putLocs(k, location(k));
    }
    req.reply(r.build());
  }

  private void delivered(Cast c) {
    Invariants.check(c.hasPlan(), "dynastar: the oracle was delivered a command");
    Plan p = c.getPlan();
    if (rep != null && p.getId() <= applied) {
      return; // a new leader's repeat of a plan number: the first delivered wins, here as at the partitions
    }
    Invariants.check(p.getId() == applied + 1, "dynastar: the oracle delivers plan %s after plan %s", p.getId(),
        applied);
    new TreeMap<>(p.getMovesMap()).forEach((k, to) -> {
      if (rep != null) {
        if (placement.of(k) == to) {
          locHere.remove(k);
        } else {
          locHere.put(k, to);
        }
      } else if (placement.of(k) == to) {
        loc.remove(k);
      } else {
        loc.put(k, Loc.newBuilder().setPartition(to).build());
      }
    });
    applied = p.getId();
  }

  @Override
  public void delivered(long position, long id, Cast c) {
    delivered(c);
  }

  @Override
  public com.google.protobuf.ByteString snapshot() {
    return ReplicaState.newBuilder().putAllLoc(locHere).setApplied(applied).build().toByteString();
  }

  @Override
  public void install(com.google.protobuf.ByteString state) {
    ReplicaState s;
    try {
      s = ReplicaState.parseFrom(state);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("dynastar: the oracle cannot read its group's snapshot (" + e.getMessage()
          + "). Fix: every replica must run the same protocol build", e);
    }
    locHere.clear();
    locHere.putAll(s.getLocMap());
    applied = s.getApplied();
    issued = applied;
  }

  /** Multicasts plan {@code p} (numbered {@code issued}) to every partition and the oracle. */
  private void multicastPlan(Plan p, List<Integer> all) {
    if (rep != null) {
      rep.multicast(Cast.newBuilder().setPlan(p).build(), all, (id, failure) -> {
        if (failure != null) {
          issued = applied; // not multicast (or not known to be): the next round may number a plan the same
        }
      });
      return;
    }
    long id = ((long) me << 40) | issued;
    if (observed != null) {
      observed.multicast(me, id, all);
    }
    skeen.multicast(id, Cast.newBuilder().setPlan(p).build(), all);
  }

  /**
   * Partitions the workload graph and multicasts the plan if its edge cut is at least {@code planGain}% (default 10)
   * below the current placement's (and the last plan is delivered here; 0: whenever it moves anything). The seed repartitions when "changes exceed a threshold" and
   * gives no value; we decide by the gain instead, so a stable workload stops moving variables once placed well,
   * and a changed one (a celebrity) moves them again.
   */
  private void repartition() {
    if (computing || issued != applied || graph.edges() == 0 || parts < 2) {
      return; // a plan being computed or in flight, or no two keys accessed together: nothing a partitioning can gain
    }
    // METIS over a big graph takes long: it runs off the event loop, on a copy of the graph, while the oracle goes
    // on answering locations and taking hints; its result comes back as a later event. Every variable weighs 1: the
    // parts balance the data, as the seed's ("the objects were evenly distributed among partitions", Table 1), not
    // the accesses (a celebrity's fans' timelines, written by its every post, would then have to be split)
    WorkloadGraph snapshot = graph.copy(true);
    computing = true;
    ctx.offload(() -> {
      try {
        return partitioner.partition(snapshot, parts, DynaStar.IMBALANCE, 1);
      } catch (RuntimeException e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
      }
    }, result -> turn(() -> {
      computing = false;
      if (result instanceof Placement next) {
        plan(snapshot, next);
      } else { // an external partitioner (gpmetis) that fails must not stop the oracle: the variables stay
        ctx.metrics().count("dynastar.partitionerFailures");
        ctx.log().warn("dynastar: the oracle's partitioner {} failed, no plan this time: {}", partitioner.name(),
            result);
      }
    }));
  }

  /** The plan from {@code next}, a partitioning of {@code graph} (the graph when it was computed), if it gains. */
  private void plan(WorkloadGraph graph, Placement next) {
    int[] label = relabel(graph, next);
    int[] now = new int[graph.vertices()];
    int[] planned = new int[graph.vertices()];
    for (int v = 0; v < graph.vertices(); v++) {
      now[v] = location(graph.name(v));
      planned[v] = label[next.part()[v]];
    }
    long cut = new Placement(parts, now).edgeCut(graph);
    if (new Placement(parts, planned).edgeCut(graph) * 100 > cut * (100 - planGain)) {
      return; // not planGain% better than where the variables are: not worth moving them
    }
    Plan.Builder p = Plan.newBuilder().setId(issued + 1);
    for (int v = 0; v < graph.vertices(); v++) {
      if (planned[v] != now[v]) {
        p.putMoves(graph.name(v), planned[v]);
      }
    }
    if (p.getMovesCount() == 0) {
      return;
    }
    issued++;
    ctx.metrics().count("dynastar.plans");
    List<Integer> all = new ArrayList<>();
    for (int g = 0; g <= me; g++) {
      all.add(g);
    }
    multicastPlan(p.build(), all);
  }

  /**
   * Names the partitioner's parts after the current partitions they overlap most (by vertex weight, greedily, largest
   * overlap first): a partitioner's part numbers are arbitrary, and a plan that renames every part would move
   * everything.
   */
  private int[] relabel(WorkloadGraph graph, Placement next) {
    long[][] overlap = new long[parts][parts];
    for (int v = 0; v < graph.vertices(); v++) {
      overlap[next.part()[v]][location(graph.name(v))] += Math.max(1, graph.weight(v));
    }
    int[] label = new int[parts];
    java.util.Arrays.fill(label, -1);
    TreeSet<Integer> free = new TreeSet<>();
    for (int p = 0; p < parts; p++) {
      free.add(p);
    }
    for (int round = 0; round < parts; round++) {
      int bestPart = -1;
      int bestCur = -1;
      long best = -1;
      for (int a = 0; a < parts; a++) {
        if (label[a] >= 0) {
          continue;
        }
        for (int b : free) {
          if (overlap[a][b] > best) {
            best = overlap[a][b];
            bestPart = a;
            bestCur = b;
          }
        }
      }
      label[bestPart] = bestCur;
      free.remove(bestCur);
    }
    return label;
  }
}
