package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Server;
import org.kvlab.check.CausalChecker;
import org.kvlab.check.Result;
import org.kvlab.history.Operation;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;

/** COPS under partitions, clock skew, crashes and slow nodes: causal, session and convergence over 200 seeds; a mutant. */
class CopsCheckedSimTest {
  static final SimSpec FAULTY = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash", "slow"))
      .withMaxSkewMillis(100).withDuration(3_000_000);
  static final List<String> CHECKS = List.of("causal", "session", "convergence");

  static void runSeeds(long from, long to) {
    long total = 0;
    for (long seed = from; seed <= to; seed++) {
      SeedReport r = SimRunner.run(FAULTY, new Cops(), seed, CHECKS);
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + " " + r.result().failures());
      long ok = r.result().history().operations().stream().filter(Operation::ok).count();
      assertTrue(ok >= 100, "seed " + seed + " did little work: " + ok + " ops");
      total += ok;
    }
    System.out.printf("COPS seeds %d..%d: %d ok ops%n", from, to, total);
  }

  @Test
  void when_faultsHitSeeds1To100_then_causalSessionAndConvergencePass() {
    runSeeds(1, 100);
  }

  @Test
  void when_faultsHitSeeds101To200_then_causalSessionAndConvergencePass() {
    runSeeds(101, 200);
  }

  /** Photo/album (seed 003 §2.3): COPS holds the album entry until the photo is visible, so Bob never sees the album without it. */
  @Test
  void when_photoReplicatesAfterAlbum_then_copsKeepsBobFromSeeingTheAlbumWithoutThePhoto() {
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(new Cops(), 7);
    SimResult run = scenario.run();
    Result causal = new CausalChecker().check(run.history());
    assertTrue(causal.valid(), causal.toString());
    assertTrue(scenario.bobReadsPhoto().readValue().isPresent(), "Bob saw the album entry, so he must see the photo");
  }

  /** The mutant makes replicated versions visible without checking their dependencies: the causal checker must catch it. */
  @Test
  void when_dependencyChecksAreSkipped_then_theCausalCheckerCatchesIt() {
    Protocol mutant = new SkipDependencyChecks();
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(mutant, 7);
    SimResult run = scenario.run();
    Result causal = new CausalChecker().check(run.history());
    boolean caughtInScenario = !causal.valid();
    boolean caughtInSeeds = false;
    for (long seed = 1; seed <= 40 && !caughtInSeeds; seed++) {
      caughtInSeeds = !SimRunner.run(FAULTY, mutant, seed, List.of("causal")).ok();
    }
    assertTrue(caughtInScenario, "photo/album must expose the mutant: " + causal);
    assertTrue(caughtInSeeds, "random faulty seeds 1..40 must expose the mutant too");
  }

  /** COPS with the dependency check removed (the one rule that makes it causal). */
  static final class SkipDependencyChecks implements Protocol {
    @Override public String name() {
      return "cops-skip-dep-checks";
    }

    @Override public String summary() {
      return "broken on purpose";
    }

    @Override public MessageTypes messages() {
      return Cops.MESSAGES;
    }

    @Override public RecordType<? extends Message> record() {
      return Cops.RECORD;
    }

    @Override public Server<? extends Message> newServer() {
      return new CopsServer() {
        @Override List<Dep> dependenciesToCheck(Replicate m) {
          return List.of();
        }
      };
    }

    @Override public Client newClient() {
      return new CopsClient();
    }

    @Override public Map<String, String> parameters() {
      return new Cops().parameters();
    }
  }
}
