package org.kvlab.consensus.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.sim.Fault;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/**
 * {@link ReplicatedMulticast} in the simulator: 3 groups of 3 replicas ({@link ReplicatedMulticastTestProtocol}),
 * each group's leader multicasting 40 messages to 1 to 3 groups, under crashes with restart from the store (at most
 * one replica of a group down at a time: a minority), slow servers and, with each group's replicas spread over 3
 * datacenters, partitions between datacenters. On every seed the {@link MulticastChecker}'s properties must hold on
 * the delivery sequences of every replica, the replicas of a group must deliver the same sequence, and at the end
 * every multicast must be delivered everywhere and the replicated state be empty of it.
 */
class ReplicatedMulticastSimTest {
  static final int GROUPS = 3;
  static final int REPLICAS = 3;
  static final long DURATION = 4_000_000;
  static final long FAULTS_UNTIL = 3_000_000;

  /** One run: its recorder, the simulator's result and every problem found in it. */
  record Run(CastRecorder rec, SimResult result, List<String> problems) {}

  static SimSpec spec(boolean acrossDcs, Map<String, String> params, List<Fault> faults) {
    Map<String, String> p = new HashMap<>(params);
    p.put("layout", acrossDcs ? "datacenters" : "replicas");
    SimSpec base = SimSpec.defaults().withParams(new Params(p)).withFaults(faults).withDuration(DURATION)
        .withSettle(5_000_000).withFinalReads(false).withTrace(false);
    if (acrossDcs) {
      // 0.5 ms + up to 2 ms inside a datacenter, 5 ms + up to 5 ms between: reordering across channels
      long[][] b = new long[REPLICAS][REPLICAS];
      long[][] j = new long[REPLICAS][REPLICAS];
      for (int x = 0; x < REPLICAS; x++) {
        for (int y = 0; y < REPLICAS; y++) {
          b[x][y] = x == y ? 500 : 5_000;
          j[x][y] = x == y ? 2_000 : 5_000;
        }
      }
      return base.withTopology(REPLICAS, GROUPS, 1).withNetwork(new NetworkModel(b, j));
    }
    return base.withTopology(1, GROUPS, REPLICAS).withNetwork(new NetworkModel(new long[][] {{500}},
        new long[][] {{2_000}}));
  }

  /**
   * The seed's faults: in each group, with probability 0.7, one crash of a random replica (0.2 to 2 s, restarting
   * from its store), sometimes a second one after it; one slow server (+20 to 100 ms on what it sends); across
   * datacenters, 1 or 2 partitions between two datacenters (0.2 to 1.5 s). All over by 3 s of the 4 s run (then 5 s to settle).
   */
  static List<Fault> faults(long seed, boolean acrossDcs) {
    Random rnd = new Random(seed * 7919 + 13);
    List<Fault> out = new ArrayList<>();
    for (int g = 0; g < GROUPS; g++) {
      long from = 300_000;
      for (int i = 0; i < 2 && rnd.nextDouble() < (i == 0 ? 0.7 : 0.4); i++) {
        long start = from + (long) (rnd.nextDouble() * (FAULTS_UNTIL - 500_000 - from));
        long end = Math.min(FAULTS_UNTIL, start + 200_000 + (long) (rnd.nextDouble() * 1_800_000));
        if (start >= end) {
          break;
        }
        int r = rnd.nextInt(REPLICAS);
        out.add(new Fault.Crash(acrossDcs ? NodeId.of(r, g) : NodeId.of(0, g, r), start, end));
        from = end + 1;
      }
    }
    int victim = rnd.nextInt(GROUPS * REPLICAS);
    NodeId slow = acrossDcs ? NodeId.of(victim % REPLICAS, victim / REPLICAS)
        : NodeId.of(0, victim / REPLICAS, victim % REPLICAS);
    long slowStart = (long) (rnd.nextDouble() * FAULTS_UNTIL / 2);
    out.add(new Fault.Slow(slow, 20_000 + rnd.nextInt(80_000), slowStart, FAULTS_UNTIL));
    if (acrossDcs) {
      for (int i = 1 + rnd.nextInt(2); i > 0; i--) {
        int a = rnd.nextInt(REPLICAS);
        int b = (a + 1 + rnd.nextInt(REPLICAS - 1)) % REPLICAS;
        long start = 300_000 + (long) (rnd.nextDouble() * (FAULTS_UNTIL - 2_000_000));
        out.add(new Fault.Partition(Math.min(a, b), Math.max(a, b), start,
            Math.min(FAULTS_UNTIL, start + 200_000 + (long) (rnd.nextDouble() * 1_300_000))));
      }
    }
    return out;
  }

  static Run run(SimSpec spec, long seed) {
    CastRecorder rec = new CastRecorder();
    List<Script> idle = List.of(Script.at(0).pause(spec.durationMicros()));
    SimResult r = new Simulation(spec, new ReplicatedMulticastTestProtocol(rec), seed, idle).run();
    return new Run(rec, r, problems(rec, true));
  }

  /**
   * Every problem of a run: the recorder's, a replica whose delivery sequence is not a prefix of its group's longest
   * (or, {@code quiescent}, not all of it), the checker's violations on the sequences of each replica index, and (if
   * {@code quiescent}) replicated state left over.
   */
  static List<String> problems(CastRecorder rec, boolean quiescent) {
    List<String> out = new ArrayList<>(rec.failures);
    Map<Integer, List<ReplicatedMulticastTestServer>> byGroup = new TreeMap<>();
    rec.live.values().forEach(s -> byGroup.computeIfAbsent(s.group(), g -> new ArrayList<>()).add(s));
    Map<Integer, List<Long>> longest = new TreeMap<>();
    byGroup.forEach((g, replicas) -> longest.put(g, replicas.stream().map(ReplicatedMulticastTestServer::sequence)
        .max((a, b) -> Integer.compare(a.size(), b.size())).orElseThrow()));
    byGroup.forEach((g, replicas) -> {
      for (ReplicatedMulticastTestServer s : replicas) {
        List<Long> full = longest.get(g);
        List<Long> mine = s.sequence();
        if (!full.subList(0, mine.size()).equals(mine) || (quiescent && mine.size() != full.size())) {
          out.add("group " + g + ": a replica delivered " + mine.size() + " messages, not a prefix of (or at the end"
              + " not all of) the " + full.size() + " another replica delivered");
        }
        if (quiescent && (s.cast.outstanding() > 0 || s.cast.holding() > 0)) {
          out.add("group " + g + ": a replica still holds " + s.cast.outstanding() + " outstanding sends and "
              + s.cast.holding() + " undelivered messages at the end");
        }
      }
    });
    for (int r = 0; r < REPLICAS; r++) {
      MulticastLog log = new MulticastLog();
      rec.log.sent().forEach((id, sent) -> log.multicast(sent.get(0).from(), id, sent.get(0).dest()));
      for (Map.Entry<Integer, List<ReplicatedMulticastTestServer>> e : byGroup.entrySet()) {
        if (r < e.getValue().size()) {
          e.getValue().get(r).sequence().forEach(id -> log.delivered(e.getKey(), id));
        }
      }
      int replica = r;
      MulticastChecker.check(log, quiescent).forEach(v -> out.add("replica index " + replica + ": " + v));
    }
    return out;
  }

  @Test
  void when_replicatedGroupsMulticastUnderFaults_then_200SeedsKeepEveryPropertyAtEveryReplica() {
    int multicast = 0;
    int leaderChanges = 0;
    int snapshots = 0;
    long remembered = 0;
    long delivered = 0;
    for (long seed = 1; seed <= 200; seed++) {
      boolean acrossDcs = seed % 2 == 0;
      Map<String, String> params = Map.of("snapshotEvery", seed % 3 == 0 ? "30" : "1000");
      Run r = run(spec(acrossDcs, params, faults(seed, acrossDcs)), seed);
      long s = seed;
      assertEquals(List.of(), r.result().failures(), () -> "seed " + s + ": the run failed");
      assertEquals(List.of(), r.problems(), () -> "seed " + s + ": " + r.result().faults());
      assertEquals(GROUPS * REPLICAS, r.rec().live.size());
      multicast += r.rec().log.sent().size();
      leaderChanges += r.result().counter("multicast.resent") > 0 ? 1 : 0;
      snapshots += r.result().counter("multicast.snapshot.writeTurns") > 0 ? 1 : 0;
      for (ReplicatedMulticastTestServer server : r.rec().live.values()) {
        remembered += server.cast.remembered();
        delivered += server.sequence().size();
      }
    }
    assertTrue(remembered * 10 < delivered, "delivered ids are forgotten once their origin's watermark passes them: "
        + remembered + " of " + delivered + " still remembered at the end");
    // liveness: every group multicast (nearly) all its messages, and (checked above) all were delivered everywhere
    assertTrue(multicast >= 200 * GROUPS * 40 * 95 / 100, "only " + multicast + " multicasts in 200 seeds");
    assertTrue(leaderChanges >= 50, "a new leader re-sent outstanding sends in only " + leaderChanges + " seeds");
    assertTrue(snapshots >= 50, "snapshots were written in only " + snapshots + " seeds");
  }

  /**
   * The first run finds the first vote a leader of group 1 commits after 1.5 s (a message to several groups, so the
   * vote goes to another group); the second, the same seed, mutes that leader from that very apply on (it sends
   * nothing more, as if it crashed before the event's messages left) and crashes it 1 ms later for 3 s. The vote is in
   * the group's log, so the next leader holds it as outstanding and sends it: the message is delivered at every
   * replica of every destination, and every property holds.
   */
  @Test
  void when_aLeaderCrashesAfterCommittingAVoteBeforeSendingIt_then_theMessageIsStillDeliveredEverywhere() {
    Run second = crashAfterVote(Map.of());
    long id = second.rec().watchedId;
    assertEquals(List.of(), second.result().failures());
    assertEquals(List.of(), second.problems());
    List<Integer> dest = second.rec().dest.get(id);
    assertTrue(dest.size() > 1 && dest.contains(1), "message " + id + " goes to group 1 and others: " + dest);
    int replicas = 0;
    for (ReplicatedMulticastTestServer s : second.rec().live.values()) {
      if (dest.contains(s.group())) {
        assertTrue(s.sequence().contains(id), "a replica of group " + s.group() + " delivered " + id);
        replicas++;
      }
    }
    assertEquals(dest.size() * REPLICAS, replicas);
    assertTrue(second.result().counter("multicast.resent") > 0, "the next leader re-sent the outstanding sends");
  }

  /** The same, with a next leader that does not send what was outstanding: the message is never delivered. */
  @Test
  void when_theNextLeaderDoesNotResend_then_theVoteCommittedBeforeTheCrashIsLost() {
    Run second = crashAfterVote(Map.of("mutant", "no-resend"));
    long id = second.rec().watchedId;
    assertTrue(second.problems().stream().anyMatch(p -> p.contains(Long.toString(id))), "message " + id
        + " is reported undelivered: " + second.problems());
  }

  /**
   * Seed 5 in one datacenter, run twice: the first run finds the first vote a leader of group 1 commits after 1.5 s;
   * the second mutes that leader from that apply on and crashes it 1 ms later for 3 s (with {@code params} more).
   */
  private static Run crashAfterVote(Map<String, String> params) {
    long seed = 5;
    Map<String, String> watch = new HashMap<>(params);
    watch.put("watchGroup", "1");
    watch.put("watchAfterMicros", "1500000");
    Run first = run(spec(false, watch, List.of()), seed);
    NodeId leader = first.rec().watchedLeader;
    assertNotNull(leader, "a leader of group 1 committed a vote after 1.5 s");
    long at = first.rec().watchedMicros;
    Map<String, String> mute = new HashMap<>(watch);
    mute.put("muteNode", leader.toString());
    mute.put("muteAtMicros", Long.toString(at));
    Run second = run(spec(false, mute, List.of(new Fault.Crash(leader, at + 1_000, at + 3_000_000))), seed);
    assertEquals(leader, second.rec().watchedLeader, "the same run up to the vote");
    assertEquals(first.rec().watchedId, second.rec().watchedId);
    return second;
  }

  @Test
  void when_aLeaderVotesBeforeItsGroupCommittedTheData_then_theCheckCatchesItWithin5Seeds() {
    int caught = 0;
    for (long seed = 1; seed <= 5 && caught == 0; seed++) {
      Run r = run(spec(seed % 2 == 0, Map.of("mutant", "vote-before-commit"), List.of()), seed);
      caught += r.problems().isEmpty() ? 0 : 1;
    }
    assertTrue(caught >= 1, "a leader acting before its group's commit must be caught within 5 seeds");
  }

  @Test
  void when_theSameSeedRunsTwice_then_everyReplicaDeliversTheSame() {
    SimSpec spec = spec(true, Map.of(), faults(4, true));
    Run a = run(spec, 4);
    Run b = run(spec, 4);
    assertEquals(a.rec().positions, b.rec().positions);
    assertFalse(a.rec().positions.isEmpty());
  }
}
