package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.kvlab.api.NodeId;

/**
 * Draws a seed's faults from the enabled kinds (swarm testing: which faults and how strong differ per
 * seed). All faults end before 80% of the workload duration, so the end of every run is fault-free and
 * convergence can be required.
 */
final class FaultPlan {
  private FaultPlan() {}

  static List<Fault> draw(SimSpec spec, Random random) {
    List<Fault> out = new ArrayList<>();
    long horizon = spec.durationMicros() * 8 / 10;
    List<NodeId> all = spec.topology().allNodes();
    int dcs = spec.topology().datacenters();
    if (spec.faultKinds().contains("skew")) {
      long max = spec.maxSkewMillis() * 1000;
      for (NodeId id : all) {
        long skew = max == 0 ? 0 : (long) ((random.nextDouble() * 2 - 1) * max);
        double drift = (random.nextDouble() * 2 - 1) * 200; // ±200 ppm
        out.add(new Fault.Skew(id, skew, drift));
      }
    }
    if (spec.faultKinds().contains("partition") && dcs > 1) {
      int count = 1 + random.nextInt(3);
      for (int i = 0; i < count; i++) {
        int a = random.nextInt(dcs);
        int b = (a + 1 + random.nextInt(dcs - 1)) % dcs;
        long start = (long) (random.nextDouble() * horizon * 0.8);
        long length = 100_000 + (long) (random.nextDouble() * Math.min(2_000_000, horizon - start - 100_000));
        out.add(new Fault.Partition(Math.min(a, b), Math.max(a, b), start, Math.min(horizon, start + length)));
      }
    }
    if (spec.faultKinds().contains("crash")) {
      int count = 1 + random.nextInt(2);
      for (int i = 0; i < count; i++) {
        NodeId victim = all.get(random.nextInt(all.size()));
        long start = (long) (random.nextDouble() * horizon * 0.8);
        long length = 50_000 + (long) (random.nextDouble() * 1_000_000);
        out.add(new Fault.Crash(victim, start, Math.min(horizon, start + length)));
      }
    }
    if (spec.faultKinds().contains("slow")) {
      NodeId victim = all.get(random.nextInt(all.size()));
      long start = (long) (random.nextDouble() * horizon * 0.5);
      out.add(new Fault.Slow(victim, 100_000, start, horizon));
    }
    return out;
  }
}
