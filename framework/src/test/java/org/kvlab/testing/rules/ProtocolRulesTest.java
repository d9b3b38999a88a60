package org.kvlab.testing.rules;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.clock.HybridLogicalClock;
import org.kvlab.testing.ProtocolRules;

/** The determinism rule catches each kind of escape from the context, and lets context use through. */
class ProtocolRulesTest {
  /** A "protocol" that does everything the rule forbids. */
  static final class Escapes {
    long wallClock() {
      return System.currentTimeMillis();
    }

    long monotonic() {
      return System.nanoTime();
    }

    long instant() {
      return Instant.now().toEpochMilli();
    }

    int dice() {
      return new Random().nextInt(6);
    }

    void nap() throws InterruptedException {
      Thread.sleep(1);
    }

    void thread() {
      new Thread(() -> {}).start();
    }

    boolean file() {
      return new java.io.File("/tmp/x").exists();
    }
  }

  /** A "protocol" that only uses what its context hands it. */
  static final class Behaves {
    long stamp(HybridLogicalClock hlc, Random fromContext) {
      return hlc.now() + fromContext.nextInt(3);
    }
  }

  @Test
  void when_protocolCodeEscapesItsContext_then_everyEscapeIsNamedWithItsLine() {
    EvaluationResult result = ProtocolRules.evaluate(new ClassFileImporter().importClasses(Escapes.class));
    assertTrue(result.hasViolation());
    String report = String.join("\n", result.getFailureReport().getDetails());
    for (String expected : List.of("System.currentTimeMillis()", "System.nanoTime()", "Instant.now()",
        "java.util.Random.<init>()", "Thread.sleep(long)", "java.lang.Thread", "java.io.File",
        "ProtocolRulesTest.java:")) {
      assertTrue(report.contains(expected), "expected the report to name " + expected + ":\n" + report);
    }
  }

  @Test
  void when_protocolCodeUsesOnlyItsContext_then_theRulePasses() {
    EvaluationResult result = ProtocolRules.evaluate(new ClassFileImporter().importClasses(Behaves.class));
    assertFalse(result.hasViolation(), () -> String.join("\n", result.getFailureReport().getDetails()));
  }
}
