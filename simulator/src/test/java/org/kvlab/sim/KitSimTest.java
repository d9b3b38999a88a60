package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.NodeId;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.api.VersionKey;
import org.kvlab.check.Result;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.store.Durability;
import org.kvlab.testing.PrimaryBackupKit;
import org.kvlab.testing.kitpb.PbPut;
import org.kvlab.testing.kitpb.PbPutReply;
import org.kvlab.testing.kitpb.PbRecord;

/** The protocol kit in the simulator: waits, calls across a restart, forwards, the slot, the answer-once guard. */
class KitSimTest {
  private static final SimSpec ONE_PARTITION = SimSpec.defaults().withTopology(2, 1).withFaultKinds(Set.of())
      .withDurability(Durability.SYNC).withDuration(3_000_000).withSettle(3_000_000);

  private static SimResult run(SimSpec spec, List<Script> scripts) {
    return new Simulation(spec, new PrimaryBackupKit(), 1, scripts).run();
  }

  private static Operation op(SimResult r, Operation.Type type, String key) {
    return r.history().operations().stream().filter(o -> o.type() == type && key.equals(o.key())).findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " of " + key + " in " + r.history().operations()));
  }

  private static String read(Operation o) {
    assertEquals(Outcome.OK, o.outcome(), o.describe());
    return o.readValue().orElseThrow().toStringUtf8();
  }

  @Test
  void sameSeed_sameRun_andPrimaryBackupIsLinearizableUnderCrashesAndPartitions() {
    SimSpec spec = SimSpec.defaults().withTopology(2, 2).withDurability(Durability.SYNC).withDuration(2_000_000)
        .withFaultKinds(Set.of("crash", "partition", "skew")).withTrace(true);
    for (long seed = 1; seed <= 4; seed++) {
      SimRunner.SeedReport report = SimRunner.run(spec, new PrimaryBackupKit(), seed, List.of("linearizable"));
      assertTrue(report.result().failures().isEmpty(), "seed " + seed + ": " + report.result().failures());
      for (Result c : report.checks()) {
        assertTrue(c.valid(), "seed " + seed + ": " + c);
      }
      assertTrue(report.result().history().operations().stream().filter(o -> o.outcome() == Outcome.OK).count() > 20,
          "seed " + seed + " did some work");
    }
    SimResult a = new Simulation(spec, new PrimaryBackupKit(), 3).run();
    SimResult b = new Simulation(spec, new PrimaryBackupKit(), 3).run();
    assertEquals(a.history().operations(), b.history().operations());
    assertEquals(a.deliveries(), b.deliveries());
    assertEquals(trace(a), trace(b));
    assertTrue(trace(a).stream().anyMatch(t -> t.contains(" PbApply ")) && trace(a).stream()
        .anyMatch(t -> t.contains(" PbApplied ")), "calls and their answers are in the trace as their message types");
  }

  private static List<String> trace(SimResult r) {
    return r.trace().entries().stream()
        .map(e -> e.sendMicros() + " " + e.from() + ">" + e.to() + " " + e.label() + " " + e.deliverMicros()).toList();
  }

  @Test
  void callWithRetryOnTimeout_survivesTheCalleesCrashAndRestart() {
    // The backup 1_0 is down from 100 to 600 ms; the primary's call to it is retried every 100 ms.
    SimSpec spec = ONE_PARTITION.withFaults(List.of(new Fault.Crash(NodeId.of(1, 0), 100_000, 600_000)));
    SimResult r = run(spec, List.of(Script.at(0).startingAt(200_000).put("k", "v"),
        Script.at(1).startingAt(900_000).get("ver/1").get("k")));
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    Operation put = op(r, Operation.Type.PUT, "k");
    assertEquals(Outcome.OK, put.outcome(), put.describe());
    assertTrue(put.completeMicros() > 600_000, "answered once the backup was back: " + put.describe());
    assertTrue(r.counter("kit.callRetries") >= 3, "retried while the backup was down: " + r.counters());
    assertEquals("1", read(op(r, Operation.Type.GET, "ver/1")));
    assertEquals("v", read(op(r, Operation.Type.GET, "k")), "the backup forwards the read to the primary");
  }

  @Test
  void forward_toAPrimaryThatStaysDown_isUnknownAfterItsTimeout() {
    SimSpec spec = ONE_PARTITION.withFaults(List.of(new Fault.Crash(NodeId.of(0, 0), 100_000, 5_000_000)));
    SimResult r = run(spec, List.of(Script.at(1).startingAt(200_000).put("k", "v")));
    Operation put = op(r, Operation.Type.PUT, "k");
    assertEquals(Outcome.INFO, put.outcome(), put.describe());
    assertTrue(put.error().contains("no answer from 0_0 within PT1.5S to the forwarded PbPut"), put.error());
    // the forward's timeout plus the client's round trip inside its datacenter
    assertEquals(1_500_000, put.completeMicros() - put.invokeMicros(), 5_000, put.describe());
  }

  @Test
  void forward_toAPrimaryThatRestarts_isUnknownAtTheRestart_andTheRestartedPrimaryKeepsItsSlot() {
    // The primary writes versions 1 and 2, crashes at 300 ms holding a forwarded PUT, restarts at 800 ms.
    SimSpec spec = ONE_PARTITION.withFaults(List.of(new Fault.Crash(NodeId.of(0, 0), 300_000, 800_000)));
    SimResult r = run(spec, List.of(Script.at(0).put("a", "1").put("b", "2"),
        Script.at(1).startingAt(350_000).put("held", "3"),
        Script.at(0).startingAt(1_000_000).put("c", "4").get("incarnation"),
        Script.at(1).startingAt(1_200_000).get("ver/4").get("held")));
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    Operation held = op(r, Operation.Type.PUT, "held");
    assertEquals(Outcome.INFO, held.outcome(), held.describe());
    assertTrue(held.error().contains("server 0_0 restarted (incarnation 1 -> 2) before answering the forwarded PbPut"),
        held.error());
    assertEquals(800_000, held.completeMicros(), 20_000, "answered at the restart: " + held.describe());
    assertEquals(Outcome.OK, op(r, Operation.Type.PUT, "c").outcome());
    assertEquals("2", read(op(r, Operation.Type.GET, "incarnation")));
    // versions 1, 2 before the crash; the held PUT, delivered to the restarted primary, took 3; c took 4
    assertEquals("4", read(op(r, Operation.Type.GET, "ver/4")));
    assertEquals("3", read(op(r, Operation.Type.GET, "held")), "the held write took effect: INFO was right");
    assertTrue(r.counter("kit.staleAnswers") >= 1, "the late answer to the forward was dropped: " + r.counters());
  }

  @Test
  void slot_underDurabilityNone_rollsBackWithTheStoreToTheLastFlush() {
    // Flushes at 200 ms, 400 ms...: versions 1 and 2 (before 200 ms) survive the crash at 250 ms; 3 (at 210 ms) not.
    SimSpec spec = ONE_PARTITION.withDurability(Durability.NONE).withTopology(1, 1)
        .withFaults(List.of(new Fault.Crash(NodeId.of(0, 0), 250_000, 300_000)));
    SimResult r = run(spec, List.of(Script.at(0).put("a", "1").put("b", "2").pause(210_000).put("c", "3"),
        Script.at(0).startingAt(400_000).put("d", "4").get("ver/3").get("c")));
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    assertEquals("3", read(op(r, Operation.Type.GET, "ver/3")), "d took version 3 again (with the new incarnation)");
    assertTrue(op(r, Operation.Type.GET, "c").readValue().isEmpty(), "c was lost with the unflushed store");
  }

  @Test
  void waitUntil_isRecheckedAfterTheMessageThatMakesItTrue() {
    SimResult r = run(ONE_PARTITION, List.of(Script.at(1).get("ver/1"), Script.at(0).startingAt(100_000).put("k", "v")));
    assertTrue(r.failures().isEmpty(), r.failures().toString());
    Operation put = op(r, Operation.Type.PUT, "k");
    Operation wait = op(r, Operation.Type.GET, "ver/1");
    assertEquals("1", read(wait));
    assertTrue(wait.completeMicros() > put.invokeMicros() && wait.completeMicros() < put.completeMicros() + 100_000,
        "answered when the apply arrived: " + wait.describe() + " / " + put.describe());
  }

  @Test
  void waitUntilClock_runsWhenTheNodesClockReadsTheTime() {
    long target = Simulation.EPOCH_MILLIS * 1000 + 300_000;
    SimResult r = run(ONE_PARTITION, List.of(Script.at(0).get("clock/" + target)));
    Operation o = op(r, Operation.Type.GET, "clock/" + target);
    long read = Long.parseLong(read(o));
    assertTrue(read >= target && read < target + 1_000, "the clock read " + read + ", wanted " + target);
  }

  @Test
  void answeredTwice_namesBothSites() {
    SimResult r = new Simulation(ONE_PARTITION.withTopology(1, 1), new Twice(false), 1,
        List.of(Script.at(0).put("k", "v"))).run();
    assertTrue(r.failures().stream().anyMatch(f -> f.contains("request PbPut answered twice: first reply in the "
        + "handler of request PbPut, then unknown in a timer")), r.failures().toString());
  }

  @Test
  void duplicateHandlers_areRefusedAsInTheRuntime() {
    SimResult r = new Simulation(ONE_PARTITION.withTopology(1, 1), new Twice(true), 1,
        List.of(Script.at(0).put("k", "v"))).run();
    assertTrue(r.failures().stream().anyMatch(f -> f.contains("two request handlers for PbPut")), r.failures().toString());
  }

  /** Answers every PUT twice (the second time from a timer), or registers its handler twice. */
  static final class Twice extends BaseProtocol {
    Twice(boolean twoHandlers) {
      super("twice", "test", PrimaryBackupKit.MESSAGES, RecordType.of(PbRecord.class, r -> VersionKey.of(r.getVer())),
          () -> new Server<PbRecord>() {
            @Override
            protected void register(Handlers on) {
              on.request(PbPut.class, req -> {
                req.reply(PbPutReply.getDefaultInstance());
                after(Duration.ofMillis(1), () -> req.unknown("again"));
              });
              if (twoHandlers) {
                on.request(PbPut.class, req -> req.reply(PbPutReply.getDefaultInstance()));
              }
            }
          }, () -> new PrimaryBackupKit().newClient());
    }
  }
}
