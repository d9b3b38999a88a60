package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.kvlab.api.NodeId;
import org.kvlab.api.Topology;
import org.kvlab.check.CausalChecker;
import org.kvlab.check.Result;
import org.kvlab.check.RotxChecker;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/** Scripted anomalies (photo/album, Fig 2.2) and the §4.6 decision on Alg 5.2 line 7. */
class CausalSpartanXScenarioTest {
  private static final Topology T = SimSpec.defaults().topology();

  private static String keyOn(String prefix, int p) {
    return Scenarios.keyOn(T, prefix, p);
  }

  private static List<Operation> ops(SimResult r, int dc, Operation.Type type, String key) {
    List<Operation> out = new ArrayList<>();
    for (Operation op : r.history().operations()) {
      if (op.dc() == dc && op.type() == type && (key == null || key.equals(op.key())) && op.ok()) {
        out.add(op);
      }
    }
    return out;
  }

  private static Optional<ByteString> v(String s) {
    return Optional.of(ByteString.copyFromUtf8(s));
  }

  /** Photo/album (§2.3): Bob sees the album entry, so he must see the photo, even with the photo's partition slow. */
  @Test
  void when_photoReplicatesAfterAlbum_then_bobStillSeesThePhoto() {
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(new CausalSpartanX(), 7);
    SimResult run = scenario.run();
    assertEquals(List.of(), run.failures());
    List<Operation> bobPhoto = ops(run, 1, Operation.Type.GET, scenario.photo());
    assertEquals(v("beach.jpg"), bobPhoto.get(0).readValue(), "the anomaly must not happen");
    assertTrue(new CausalChecker().check(run.history()).valid());
  }

  /**
   * Fig 2.2 with ROTX: Alice blocks Bob, then posts a private photo; later she posts a public photo, then unblocks
   * him. Bob, in the other datacenter, reads (acl, photo) in read-only transactions; the acl's partition is slow.
   * He must never see the private photo without the block.
   */
  @Test
  void when_bobReadsAclAndPhotoInRotx_then_heNeverSeesThePrivatePhotoUnblocked() {
    String acl = keyOn("acl", 0);
    String photo = keyOn("photo", 1);
    SimSpec spec = SimSpec.defaults().withDuration(2_000_000)
        .withFaults(List.of(new Fault.Slow(T.serverFor(acl, 0), 150_000, 0, 2_000_000)));
    Script alice = Script.at(0).startingAt(10_000).put(acl, "bob blocked").put(photo, "private.jpg").pause(400_000)
        .put(photo, "public.jpg").put(acl, "bob unblocked");
    Script bob = Script.at(1).startingAt(10_000);
    for (int i = 0; i < 60; i++) {
      bob = bob.rotx(acl, photo).pause(10_000);
    }
    SimResult run = new Simulation(spec, new CausalSpartanX(), 3, List.of(alice, bob)).run();
    assertEquals(List.of(), run.failures());
    int sawPrivate = 0;
    for (Operation tx : ops(run, 1, Operation.Type.ROTX, null)) {
      if (tx.reads().get(photo).equals(v("private.jpg"))) {
        sawPrivate++;
        assertEquals(v("bob blocked"), tx.reads().get(acl), "Bob saw the private photo unblocked: " + tx.describe());
      }
      if (tx.reads().get(acl).equals(v("bob unblocked"))) {
        assertEquals(v("public.jpg"), tx.reads().get(photo), "unblocked must come with the public photo");
      }
    }
    assertTrue(sawPrivate > 0, "the run should reach the blocked state");
    assertTrue(new RotxChecker().check(run.history()).valid());
    assertTrue(new CausalChecker().check(run.history()).valid());
  }

  /**
   * Odd/even increments (seed 003 §5.5.3, §9 item 3) with B's clocks 20 ms behind A's: every increment is made after
   * reading the previous count (seeds 1-3), the causal and session checkers pass, and C's distance does not matter: B sees A's
   * updates through DSV[A], which does not wait for C (Fig 5.4).
   */
  @Test
  void when_clientsInTwoDatacentersIncrementOddAndEvenCounts_then_everyIncrementFollowsThePreviousCount() {
    for (long seed = 1; seed <= 3; seed++) {
      for (double[] cRtt : List.of(Scenarios.C_RTTS.get(1), Scenarios.C_RTTS.get(5))) {
        assertEquals(List.of(), Scenarios.oddEven(new CausalSpartanX(), seed, 20, cRtt, 20_000).problems());
      }
    }
    Scenarios.OddEven near = Scenarios.oddEven(new CausalSpartanX(), 1, 20, Scenarios.C_RTTS.get(1), 20_000);
    Scenarios.OddEven far = Scenarios.oddEven(new CausalSpartanX(), 1, 20, Scenarios.C_RTTS.get(5), 20_000);
    System.out.printf("causalspartanx odd/even: %.1f ms per increment with C in Oregon, %.1f ms with C in Singapore%n",
        near.meanIncrementMillis(), far.meanIncrementMillis());
    assertTrue(far.meanIncrementMillis() < 1.2 * near.meanIncrementMillis(),
        near.meanIncrementMillis() + " vs " + far.meanIncrementMillis());
  }

  /**
   * §4.6 of the digest: Alg 5.2 line 7 (DSV ← maxDS(DSV, ds) on PUT) can raise a DSV above DSV_real when a client's
   * DS holds a remote entry above DSV_real. In DC 1, Bob writes y=g then z=h (h depends on g) while y's partition is
   * slow; Carol then writes x=d′ (no dependencies, later timestamp). In DC 0, Alice reads d′, then writes w on z's
   * partition (line 7 raises that partition's DSV[1] to d′.ut); Dave reads w, then z, then y.
   * With the literal GET rule, Alice reads d′ on arrival, Dave then sees h but not g: a causal violation.
   * With our rule (GET also requires d.ut ≤ DSV[d.sr]), Alice sees d′ only once g has arrived: safe.
   */
  @Test
  void when_line7MergesAnUnstableRemoteEntry_then_literalGetBreaksCausalityAndOurRuleDoesNot() {
    String y = keyOn("y", 0);
    String z = keyOn("z", 1);
    String w = keyOn("w", 1);
    String x = keyOn("x", 2);
    SimSpec spec = SimSpec.defaults().withDuration(1_000_000)
        .withFaults(List.of(new Fault.Slow(NodeId.of(1, 0), 300_000, 0, 1_000_000)));
    List<Script> scripts = List.of(
        Script.at(1).startingAt(10_000).put(y, "g").put(z, "h"),
        Script.at(1).startingAt(30_000).put(x, "d'"),
        Script.at(0).startingAt(10_000).awaitValue(x, "d'").put(w, "alice"),
        Script.at(0).startingAt(10_000).awaitValue(w, "alice").get(z).get(y));

    SimResult literal = new Simulation(spec, Mutants.variant(CausalSpartanXServer.Variant.PAPER_LITERAL_GET), 1,
        scripts).run();
    assertEquals(v("h"), ops(literal, 0, Operation.Type.GET, z).get(0).readValue());
    assertEquals(Optional.empty(), ops(literal, 0, Operation.Type.GET, y).get(0).readValue());
    assertFalse(new CausalChecker().check(literal.history()).valid(), "the literal rule should break causality here");

    SimResult ours = new Simulation(spec, new CausalSpartanX(), 1, scripts).run();
    assertEquals(List.of(), ours.failures());
    assertEquals(v("h"), ops(ours, 0, Operation.Type.GET, z).get(0).readValue());
    assertEquals(v("g"), ops(ours, 0, Operation.Type.GET, y).get(0).readValue());
    Result causal = new CausalChecker().check(ours.history());
    assertTrue(causal.valid(), causal.toString());
  }

  /** The same decision under random faults: many seeds with skew and slow/partitioned datacenters, causal + rotx. */
  @Test
  void when_skewAndSlowPartitionsAndRotx_then_ourLine7DecisionStaysCausal() {
    SimSpec spec = CausalSpartanXSimTest.FAULTY.withFaultKinds(Set.of("skew", "slow", "partition"))
        .withWorkload(CausalSpartanXSimTest.FAULTY.workload().withKeys(8).withRotx(0.3, 3));
    for (long seed = 2001; seed <= 2040; seed++) {
      SeedReport r = SimRunner.run(spec, new CausalSpartanX(), seed, List.of("causal", "rotx", "session"));
      assertTrue(r.ok(), () -> "seed " + r.seed() + ": " + r.checks() + r.result().failures());
    }
  }
}
