package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.Protocol;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/**
 * The mutants of {@link Mutants}, and a wrong operations file, are caught under the faults of
 * {@link ConveyorBeltCheckedSimTest} within 20 seeds: by the black-box checkers ({@code serializable},
 * {@code convergence}, {@code store}) or the protocol's run-time warning.
 */
class ConveyorBeltMutantsTest {
  @TempDir Path tmp;

  /** Runs seeds until one is caught; returns how (the checkers that failed), or fails after {@code k} seeds. */
  private static List<String> caught(SimSpec spec, Supplier<Protocol> mutant, int k, List<String> checks) {
    for (long seed = 1; seed <= k; seed++) {
      SeedReport r = SimRunner.run(spec, mutant.get(), seed, checks);
      List<String> how = new ArrayList<>();
      r.checks().stream().filter(c -> !c.valid()).forEach(c -> how.add(c.checker()));
      if (r.result().counter("cb.templateViolations") > 0) {
        how.add("cb.templateViolations");
      }
      if (!how.isEmpty()) {
        return how;
      }
    }
    throw new AssertionError("not caught within " + k + " seeds");
  }

  @Test
  void when_aGlobalOperationRunsWithoutTheToken_then_itIsCaughtWithin20Seeds() {
    List<String> how = caught(ConveyorBeltCheckedSimTest.spec("list-append", Map.of()), Mutants::globalWithoutToken,
        20, List.of("serializable", "convergence"));
    assertTrue(how.contains("serializable") || how.contains("convergence"), how.toString());
  }

  @Test
  void when_theTokenDropsAnUpdateBeforeTheFullCircle_then_itIsCaughtWithin20Seeds() {
    List<String> how = caught(ConveyorBeltCheckedSimTest.spec("store", Map.of()), Mutants::tokenDropsEarly, 20,
        List.of("store"));
    assertTrue(how.contains("store"), how.toString());
  }

  @Test
  void when_theOperationsFileDeclaresOrderWithoutItsStock_then_orderIsLocalAndTheRunCatchesIt() throws Exception {
    String store = new String(Classification.class.getResourceAsStream("online-store.yaml").readAllBytes());
    String wrong = store.replace("reads: [\"cart:{c}\", \"stock:*\"]", "reads: [\"cart:{c}\"]")
        .replace("writes: [\"stock:*\", \"order:{c}:*\", \"cart:{c}\"]", "writes: [\"order:{c}:*\", \"cart:{c}\"]");
    assertTrue(!wrong.equals(store), "the file was not altered");
    Path file = Files.writeString(tmp.resolve("wrong-store.yaml"), wrong);
    Classification c = Classification.load(file.toString());
    assertTrue(c.result.of("order").cls() == org.kvlab.partitioning.operations.OperationClass.L,
        "order should now be classified local");
    List<String> how = caught(ConveyorBeltCheckedSimTest.spec("store", Map.of("operations", file.toString())),
        ConveyorBelt::new, 20, List.of("store"));
    assertTrue(how.contains("cb.templateViolations") && how.contains("store"), how.toString());
  }
}
