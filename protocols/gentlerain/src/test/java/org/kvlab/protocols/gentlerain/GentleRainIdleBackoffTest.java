package org.kvlab.protocols.gentlerain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Trace;

/**
 * The framework's idle back-off (Handlers.every(fast, idle, idleAfter, task)) on GentleRain: an idle cluster sends
 * about one timer message per server and second and no lease, and one PUT at one server engages all six servers
 * (the framework's lease frames) within a message delay, though the PUT replicates to one peer only; a waiting
 * request keeps the cluster engaged.
 */
class GentleRainIdleBackoffTest {
  private static final Set<String> TIMER_MESSAGES = Set.of("Heartbeat", "VVMessage", "GSTMessage");

  @Test
  void when_theClusterIsIdle_then_fewTimerMessages_andOnePutEngagesEveryServer() {
    long secondPut = 4_000_000;
    SimSpec spec = SimSpec.defaults().withTrace(true).withDuration(4_500_000).withFinalReads(false);
    SimResult run = new Simulation(spec, new GentleRain(), 3,
        List.of(Script.at(0).startingAt(10_000).put("a", "1").pause(secondPut - 10_000).put("b", "2")))
        .run();
    assertEquals(List.of(), run.failures());
    List<Trace.Entry> messages = run.trace().entries().stream().filter(e -> e.to() != null).toList();

    // idle: 1 s after the first PUT (idleAfter) and a margin, before the second
    List<Trace.Entry> idle = between(messages, 2_000_000, secondPut);
    long timer = idle.stream().filter(e -> TIMER_MESSAGES.contains(e.label())).count();
    assertTrue(timer > 0 && timer <= 2 * 14 + 6, "an idle 2x3 cluster sends about 14 timer messages a second: " + timer);
    assertTrue(idle.stream().allMatch(e -> TIMER_MESSAGES.contains(e.label())), "nothing else while idle: "
        + idle.stream().map(Trace.Entry::label).distinct().toList());

    // engaged again: a message delay (25 ms across datacenters) after the second PUT, every server sends at the
    // fast pace (heartbeat 10 ms, GST 5 ms) for the next 50 ms: at least 4 timer messages each
    long invoked = run.trace().entries().stream().filter(e -> e.label().startsWith("invoke put(b"))
        .mapToLong(Trace.Entry::sendMicros).findFirst().orElseThrow();
    var perServer = between(messages, invoked + 40_000, invoked + 90_000).stream()
        .filter(e -> TIMER_MESSAGES.contains(e.label()))
        .collect(Collectors.groupingBy(Trace.Entry::from, Collectors.counting()));
    assertEquals(6, perServer.size(), "every server sends timer messages again: " + perServer);
    assertTrue(perServer.values().stream().allMatch(n -> n >= 4), "at the fast pace: " + perServer);
  }

  /**
   * A read-only transaction that waits for GST through a 2 s partition between the datacenters keeps the cluster
   * engaged (its request is unanswered), so it completes a few message delays after the partition heals, not at
   * the next idle step.
   */
  @Test
  void when_aRotxWaitsThroughALongPartition_then_itCompletesSoonAfterTheHeal() {
    long heal = 2_100_000;
    SimSpec spec = SimSpec.defaults().withTrace(true).withDuration(3_000_000).withFinalReads(false)
        .withFaults(List.of(new Fault.Partition(0, 1, 100_000, heal)));
    SimResult run = new Simulation(spec, new GentleRain(), 3,
        List.of(Script.at(0).startingAt(150_000).put("a", "1").rotx("a", "b"))).run();
    assertEquals(List.of(), run.failures());
    Operation rotx = run.history().operations().stream().filter(op -> op.type() == Operation.Type.ROTX)
        .findFirst().orElseThrow();
    assertTrue(rotx.ok(), rotx.describe());
    assertTrue(rotx.completeMicros() > heal && rotx.completeMicros() < heal + 200_000,
        "done within 200 ms of the heal: " + rotx.describe());
  }

  private static List<Trace.Entry> between(List<Trace.Entry> messages, long from, long to) {
    return messages.stream().filter(e -> e.sendMicros() >= from && e.sendMicros() < to).toList();
  }
}
