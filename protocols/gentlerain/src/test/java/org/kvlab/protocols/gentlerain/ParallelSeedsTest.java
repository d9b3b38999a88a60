package org.kvlab.protocols.gentlerain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * {@code kvlab sim --jobs N}: seeds simulated in parallel come back in seed order, each exactly what a serial
 * run of that seed gives (history, faults, failures, message and event counts, every checker's verdict).
 */
class ParallelSeedsTest {
  private static final SimSpec SPEC = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash", "slow"))
      .withDuration(1_000_000).withTrace(false);
  private static final List<String> CHECKS = List.of("causal", "session", "convergence", "rotx");

  @Test
  void when_seedsRunOnSeveralThreads_then_reportsArriveInSeedOrderAndEqualTheSerialRun() throws InterruptedException {
    List<Long> seeds = LongStream.rangeClosed(1, 12).boxed().toList();
    List<SeedReport> serial = new ArrayList<>();
    SimRunner.runAll(SPEC, new GentleRain(), seeds, CHECKS, 1, serial::add);
    List<SeedReport> parallel = new ArrayList<>();
    List<String> threads = new ArrayList<>();
    SimRunner.runAll(SPEC, new GentleRain(), seeds, CHECKS, 3, r -> {
      parallel.add(r);
      threads.add(Thread.currentThread().getName());
    });

    assertEquals(seeds, parallel.stream().map(SeedReport::seed).toList(), "reports must come in seed order");
    assertEquals(seeds.size(), serial.size());
    for (int i = 0; i < seeds.size(); i++) {
      SeedReport s = serial.get(i);
      SeedReport p = parallel.get(i);
      String seed = "seed " + s.seed();
      assertEquals(s.result().history().operations(), p.result().history().operations(), seed + ": history");
      assertEquals(s.result().faults(), p.result().faults(), seed + ": faults");
      assertEquals(s.result().failures(), p.result().failures(), seed + ": failures");
      assertEquals(s.result().deliveries(), p.result().deliveries(), seed + ": deliveries");
      assertEquals(s.result().events(), p.result().events(), seed + ": events");
      assertEquals(s.result().virtualMicros(), p.result().virtualMicros(), seed + ": simulated time");
      assertEquals(s.checks(), p.checks(), seed + ": checker verdicts");
    }
    // the consumer runs on the caller's thread, so a command can print without locks
    assertEquals(List.of(Thread.currentThread().getName()), threads.stream().distinct().toList());
  }

  @Test
  void when_jobsIsBelowOne_then_itIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> SimRunner.runAll(SPEC, new GentleRain(), List.of(1L), CHECKS, 0, r -> { }));
  }
}
