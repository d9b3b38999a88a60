package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.OperationException;
import org.kvlab.api.Protocol;
import org.kvlab.check.Result;
import org.kvlab.history.History;
import org.kvlab.testing.KitVariant;
import org.junit.jupiter.api.Test;

/**
 * Goal: a seed passes only if it checked something (issue 27): a run whose servers did not start, or where no
 * operation ended OK, is not a pass, every checker's "no violation" says "no verdict" with what the simulator knows of
 * why (not advice to record reads), and servers that throw at start are reported apart, with the cause. Method: the
 * test kit's protocol with its client or server broken on purpose, one short seed each.
 */
class SeedVerdictTest {
  private static final SimSpec SPEC = SimSpec.defaults().withDuration(300_000).withSettle(500_000).withTrace(false);
  private static final List<String> CHECKS = List.of("linearizable", "convergence");

  /** The test kit, with {@code clients} making its clients, and its servers throwing {@code serverThrows}, if not null. */
  private static Protocol kit(java.util.function.Supplier<Client> clients, RuntimeException serverThrows) {
    return new KitVariant("kit", serverThrows == null ? null : () -> {
      throw serverThrows;
    }, clients, java.util.Map.of());
  }

  /** A client whose every operation ends INFO: the protocol says the outcome is unknown. */
  private static Client unknowing() {
    return new Client() {
      @Override
      public CompletableFuture<Optional<ByteString>> get(String key) {
        return CompletableFuture.failedFuture(OperationException.unknown("no quorum"));
      }

      @Override
      public CompletableFuture<Void> put(String key, ByteString value) {
        return CompletableFuture.failedFuture(OperationException.unknown("no quorum"));
      }
    };
  }

  @Test
  void when_theServersThrowAtStart_then_theRunNamesThemAndTheCause_andTheSeedChecksNothing() {
    SimRunner.SeedReport r = SimRunner.run(SPEC, kit(null, new IllegalStateException("store not opened")), 1, CHECKS);
    List<SimResult.StartFailure> failed = r.result().startFailures();
    assertEquals(SPEC.topology().size(), failed.size(), failed.toString());
    assertEquals("0_0", failed.get(0).server());
    assertFalse(failed.get(0).refusedConfiguration(), "a bug, not a refusal");
    assertTrue(failed.get(0).describe().startsWith("server 0_0: java.lang.IllegalStateException: store not opened"
        + " (at "), failed.get(0).describe());
    assertFalse(r.ok());
    assertTrue(r.checkedNothing());
    assertEquals(0, r.result().history().size());
    for (Result c : r.checks()) {
      assertTrue(c.valid() && c.vacuous(), c.toString());
      assertTrue(c.note().startsWith("nothing checked: 6 server(s) did not start (server 0_0:"), c.note());
    }
    SimResult.StartFailure refusal = SimRunner.run(SPEC, kit(null, new IllegalArgumentException("mode: 'x'")), 1,
        CHECKS).result().startFailures().get(0);
    assertTrue(refusal.refusedConfiguration(), refusal.describe());
  }

  @Test
  void when_everyOperationEndsInfo_then_theSeedIsNotAPass_andEachCheckerSaysWhy() {
    SimRunner.SeedReport r = SimRunner.run(SPEC, kit(SeedVerdictTest::unknowing, null), 1, CHECKS);
    History.Outcomes o = r.result().history().outcomes();
    assertTrue(o.info() > 0 && o.ok() == 0 && o.fail() == 0, o.toString());
    assertTrue(r.result().startFailures().isEmpty());
    assertFalse(r.ok(), "every operation INFO is not a pass");
    for (Result c : r.checks()) {
      assertTrue(c.vacuous(), c.toString());
      assertTrue(c.note().startsWith("nothing checked: no operation ended OK (0 OK, " + o.info() + " INFO, 0 FAIL):"
          + " the servers answered none in time"), c.note());
    }
  }

  @Test
  void when_theWorkloadWritesNothing_then_convergenceSaysSo_insteadOfAdvisingToRecordReads() {
    SimSpec readsOnly = SPEC.withWorkload(SPEC.workload().withGetRatio(1));
    SimRunner.SeedReport r = SimRunner.run(readsOnly, kit(null, null), 1, List.of("convergence"));
    assertTrue(r.ok(), r.checks().toString());
    Result c = r.checks().get(0);
    assertTrue(c.vacuous(), c.toString());
    assertEquals("nothing to compare: the run wrote no key (no PUT; the workload's get ratio is 1.0), so the final"
        + " reads had nothing to read", c.note());
  }
}
