package org.kvlab.clock;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.kvlab.clock.HybridLogicalClock.c;
import static org.kvlab.clock.HybridLogicalClock.l;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Randomized multi-node runs checking the HLC properties of seed 003 §2.5 / digest §9 item 1. Several
 * simulated nodes, each with a {@link ManualClock} that has its own skew and drift (and, in one variant,
 * backward jumps), do random local events, sends and (reordered) receives. The test tracks the true
 * happens-before relation with vector clocks, independently of the HLC, and checks:
 *
 * <ul>
 *   <li>monotone per node; a receive's timestamp exceeds the message's;
 *   <li>l ≥ the node's physical time at each event;
 *   <li>l ≤ max(physical times this node has read, l of messages it received);
 *   <li>with monotone physical clocks: l ≤ the largest physical clock reading in the system at that moment;
 *   <li>e → f ⇒ hlc(e) &lt; hlc(f), for every pair of events;
 *   <li>c(f) ≤ |{g : g → f, l(g) = l(f)}| (c is bounded by the events of the same millisecond in f's past).
 * </ul>
 */
class HybridLogicalClockCausalityTest {
  private static final long T0 = 1_700_000_000_000L;

  private record Event(int node, long ts, int[] vc) {}

  private record Message(long ts, int[] vc) {}

  private static final class SimNode {
    final ManualClock pc = new ManualClock();
    final HybridLogicalClock hlc = new HybridLogicalClock(pc);
    final long skew;
    final double rate;
    long backwardOffset;
    final int[] vc;
    final List<Message> inbox = new ArrayList<>();
    long lastTs = -1;
    long maxPhysicalSeen = Long.MIN_VALUE;
    long maxReceivedL = Long.MIN_VALUE;

    SimNode(int nodes, long skew, double rate) {
      this.vc = new int[nodes];
      this.skew = skew;
      this.rate = rate;
    }

    /** Physical reading at true time t (ms since T0): skew + drift, plus accumulated backward jumps. */
    long physicalAt(long t) {
      return T0 + skew + (long) Math.floor(t * rate) + backwardOffset;
    }
  }

  private static final class Stats {
    int receives;
    int jumpsToMessageL;
    int eventsWithPositiveC;
    int maxC;
    long crossNodeHbPairs;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 20240601})
  void when_nodesWithSkewAndDriftExchangeMessages_then_happensBeforeImpliesSmallerHlc(long seed) {
    Stats stats = run(seed, 5, 3_000, false);
    assertExercised(stats);
  }

  @ParameterizedTest
  @ValueSource(longs = {7, 8, 9, 1234})
  void when_physicalClocksAlsoJumpBackward_then_happensBeforeStillImpliesSmallerHlc(long seed) {
    Stats stats = run(seed, 4, 3_000, true);
    assertExercised(stats);
  }

  private static void assertExercised(Stats s) {
    assertTrue(s.receives > 100, "run must contain receives: " + s.receives);
    assertTrue(s.jumpsToMessageL > 0, "some receive must adopt the message's l (skew exercised)");
    assertTrue(s.eventsWithPositiveC > 0, "some events must share a millisecond (c > 0)");
    assertTrue(s.crossNodeHbPairs > 1_000, "run must create cross-node causality: " + s.crossNodeHbPairs);
  }

  private static Stats run(long seed, int n, int steps, boolean backwardJumps) {
    Random rnd = new Random(seed);
    SimNode[] nodes = new SimNode[n];
    for (int i = 0; i < n; i++) {
      long skew = rnd.nextInt(101) - 50; // ±50 ms
      double rate = 0.95 + rnd.nextDouble() * 0.10; // ±5% drift
      nodes[i] = new SimNode(n, skew, rate);
    }
    List<Event> events = new ArrayList<>();
    Stats stats = new Stats();
    long t = 0;
    for (int step = 0; step < steps; step++) {
      if (rnd.nextInt(10) >= 6) {
        t += 1 + rnd.nextInt(3); // else several events share the same true millisecond
      }
      int i = rnd.nextInt(n);
      SimNode node = nodes[i];
      if (backwardJumps && rnd.nextInt(100) == 0) {
        node.backwardOffset -= 1 + rnd.nextInt(30);
      }
      long pt = node.physicalAt(t);
      node.pc.set(pt);
      node.maxPhysicalSeen = Math.max(node.maxPhysicalSeen, pt);

      int action = rnd.nextInt(3);
      long ts;
      if (action == 2 && !node.inbox.isEmpty()) {
        Message m = node.inbox.remove(rnd.nextInt(node.inbox.size())); // any order: no FIFO needed
        ts = node.hlc.update(m.ts());
        node.maxReceivedL = Math.max(node.maxReceivedL, l(m.ts()));
        for (int k = 0; k < n; k++) {
          node.vc[k] = Math.max(node.vc[k], m.vc()[k]);
        }
        node.vc[i]++;
        stats.receives++;
        assertTrue(ts > m.ts(), "receive exceeds message timestamp");
        if (l(ts) == l(m.ts()) && l(m.ts()) > pt) {
          stats.jumpsToMessageL++;
        }
      } else {
        ts = node.hlc.now();
        node.vc[i]++;
        if (action == 1) {
          int to = (i + 1 + rnd.nextInt(n - 1)) % n;
          nodes[to].inbox.add(new Message(ts, node.vc.clone()));
        }
      }
      String where = "seed " + seed + " step " + step + " node " + i + " ts " + HybridLogicalClock.format(ts);
      assertTrue(ts > node.lastTs, "monotone: " + where);
      assertTrue(ts == node.hlc.current(), "current() is the last issued: " + where);
      assertTrue(l(ts) >= pt, "l >= pt: " + where);
      assertTrue(
          l(ts) <= Math.max(node.maxPhysicalSeen, node.maxReceivedL),
          "l <= max(physical seen, received l): " + where);
      if (!backwardJumps) {
        long maxNow = Long.MIN_VALUE;
        for (SimNode other : nodes) {
          maxNow = Math.max(maxNow, other.physicalAt(t));
        }
        assertTrue(l(ts) <= maxNow, "l <= largest physical clock in the system now: " + where);
      }
      node.lastTs = ts;
      if (c(ts) > 0) {
        stats.eventsWithPositiveC++;
      }
      stats.maxC = Math.max(stats.maxC, c(ts));
      events.add(new Event(i, ts, node.vc.clone()));
    }

    for (Event f : events) {
      int sameLInPast = 0;
      for (Event e : events) {
        if (e == f || !happensBefore(e.vc(), f.vc())) {
          continue;
        }
        assertTrue(
            e.ts() < f.ts(),
            "e -> f but hlc(e)=" + HybridLogicalClock.format(e.ts()) + " >= hlc(f)="
                + HybridLogicalClock.format(f.ts()));
        if (e.node() != f.node()) {
          stats.crossNodeHbPairs++;
        }
        if (l(e.ts()) == l(f.ts())) {
          sameLInPast++;
        }
      }
      assertTrue(
          c(f.ts()) <= sameLInPast,
          "c=" + c(f.ts()) + " exceeds the " + sameLInPast + " events with the same l in its causal past");
    }
    return stats;
  }

  /** Vector-clock order: a ≤ b entry-wise and a ≠ b. */
  private static boolean happensBefore(int[] a, int[] b) {
    boolean strictly = false;
    for (int k = 0; k < a.length; k++) {
      if (a[k] > b[k]) {
        return false;
      }
      if (a[k] < b[k]) {
        strictly = true;
      }
    }
    return strictly;
  }
}
