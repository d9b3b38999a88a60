package org.kvlab.protocols.gentlerain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.kvlab.api.Protocol;
import org.kvlab.api.Topology;
import org.junit.jupiter.api.Test;
import org.kvlab.check.CausalChecker;
import org.kvlab.check.Result;
import org.kvlab.history.Operation;
import org.kvlab.sim.Fault;
import org.kvlab.sim.Scenarios;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimRunner;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/** GentleRain on the seed's scenarios (photo/album, Fig 2.2), determinism, and a mutant the checker must catch. */
class GentleRainScenarioTest {

  /**
   * Photo/album (seed 003 §2.3): Alice uploads a photo, then adds it to her album; the photo's partition is
   * slow. Eventual lets Bob see the album without the photo; GentleRain keeps the album invisible in Bob's
   * datacenter until GST passes it, and by C2 the photo has arrived by then.
   */
  @Test
  void when_photoReplicatesAfterAlbum_then_bobNeverSeesTheAlbumWithoutThePhoto() {
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(new GentleRain(), 7);
    SimResult run = scenario.run();
    assertEquals(List.of(), run.failures());
    Operation bobReadsPhoto = scenario.bobReadsPhoto();
    assertEquals(Optional.of(ByteString.copyFromUtf8("beach.jpg")), bobReadsPhoto.readValue(),
        "Bob saw the album entry, so he must see the photo");
    Result causal = new CausalChecker().check(run.history());
    assertTrue(causal.valid(), causal.toString());
  }

  /**
   * Fig 2.2: Alice blocks Bob, then changes her photo to a private one. Bob, in the other datacenter, reads
   * both with read-only transactions while Alice's writes replicate; he must never see the private photo
   * together with the old (unblocked) permission, and he eventually sees both new values.
   */
  @Test
  void when_aliceBlocksBobThenPostsAPhoto_then_bobsRotxNeverShowsThePhotoUnblocked() {
    Topology t = SimSpec.defaults().topology();
    String acl = "acl";
    String photo = Scenarios.keyOn(t, "photo", (t.partitionOf(acl) + 1) % t.partitions()); // another partition
    SimSpec spec = SimSpec.defaults().withDuration(2_000_000).withFaultKinds(Set.of("skew"))
        .withFaults(List.of(new Fault.Slow(t.serverFor(acl, 0), 150_000, 0, 2_000_000)));
    Script alice = Script.at(0).startingAt(10_000).put(acl, "bob allowed").put(photo, "public.jpg").pause(300_000)
        .put(acl, "bob blocked").put(photo, "private.jpg");
    Script bob = Script.at(1).startingAt(10_000);
    for (int i = 0; i < 60; i++) {
      bob = bob.rotx(acl, photo).pause(20_000);
    }
    bob = bob.pause(500_000).rotx(acl, photo);
    for (long seed = 1; seed <= 5; seed++) {
      SimResult run = new Simulation(spec, new GentleRain(), seed, List.of(alice, bob)).run();
      assertEquals(List.of(), run.failures());
      List<Operation> txs = run.history().operations().stream()
          .filter(op -> op.dc() == 1 && op.type() == Operation.Type.ROTX && op.ok()).toList();
      assertTrue(txs.size() >= 61, "Bob's transactions: " + txs.size());
      for (Operation tx : txs) {
        boolean privatePhoto = tx.reads().get(photo).map(ByteString::toStringUtf8).orElse("").equals("private.jpg");
        boolean blocked = tx.reads().get(acl).map(ByteString::toStringUtf8).orElse("").equals("bob blocked");
        assertFalse(privatePhoto && !blocked, "seed " + seed + ": Bob sees the private photo unblocked: " + tx.describe());
      }
      Operation last = txs.get(txs.size() - 1);
      assertEquals("private.jpg", last.reads().get(photo).orElseThrow().toStringUtf8(), "the new photo becomes visible");
      SeedReport checked = new SeedReport(seed, run, SimRunner.checkers(spec, List.of("causal", "rotx")).stream()
          .map(c -> c.check(run.history())).toList());
      assertTrue(checked.ok(), checked.checks().toString());
    }
  }

  /**
   * Odd/even increments (seed 003 §5.5.3, §9 item 3) with B's clocks 20 ms behind A's: every increment is made after
   * reading the previous count (no stalls), the causal and session checkers pass, and C's distance slows the ping-pong
   * down, because GST waits for C (Fig 5.4). B's PUTs wait out the skew (PUT waits until the clock passes dt).
   */
  @Test
  void when_clientsInTwoDatacentersIncrementOddAndEvenCounts_then_everyIncrementFollowsThePreviousCount() {
    for (long seed = 1; seed <= 3; seed++) {
      for (double[] cRtt : List.of(Scenarios.C_RTTS.get(1), Scenarios.C_RTTS.get(5))) {
        assertEquals(List.of(), Scenarios.oddEven(new GentleRain(), seed, 20, cRtt, 20_000).problems());
      }
    }
    Scenarios.OddEven near = Scenarios.oddEven(new GentleRain(), 1, 20, Scenarios.C_RTTS.get(1), 20_000);
    Scenarios.OddEven far = Scenarios.oddEven(new GentleRain(), 1, 20, Scenarios.C_RTTS.get(5), 20_000);
    System.out.printf("gentlerain odd/even: %.1f ms per increment with C in Oregon, %.1f ms with C in Singapore%n",
        near.meanIncrementMillis(), far.meanIncrementMillis());
    assertTrue(far.meanIncrementMillis() > 1.5 * near.meanIncrementMillis(),
        near.meanIncrementMillis() + " vs " + far.meanIncrementMillis());
  }

  /**
   * Update times must not run ahead of the clock under load: ut = max(PC, VV[m] + 1) is strictly increasing per
   * server, so with millisecond timestamps a server taking more than 1,000 PUTs a second pushed ut into the future,
   * and every PUT depending on it elsewhere waited ("until PC > dt"). Four sessions alternating PUTs between two
   * partitions (about 5,000 PUTs a second on each server) must see PUT latency near the 0.4 ms round trip.
   */
  @Test
  void when_serversTakeThousandsOfPutsASecond_then_putsDoNotWaitForUpdateTimesAheadOfTheClock() {
    Topology t = SimSpec.defaults().topology();
    List<Script> scripts = new java.util.ArrayList<>();
    for (int s = 0; s < 4; s++) {
      Script sc = Script.at(0).startingAt(10_000);
      for (int i = 0; i < 1500; i++) {
        sc = sc.put(Scenarios.keyOn(t, "a" + s + "-" + (i % 7), 0), "a" + s + "-" + i)
            .put(Scenarios.keyOn(t, "b" + s + "-" + (i % 7), 1), "b" + s + "-" + i);
      }
      scripts.add(sc);
    }
    SimResult run = new Simulation(SimSpec.defaults().withDuration(3_000_000), new GentleRain(), 3, scripts).run();
    assertEquals(List.of(), run.failures());
    List<Operation> puts = run.history().operations().stream()
        .filter(op -> op.type() == Operation.Type.PUT && op.ok() && op.session() < 4).toList();
    assertTrue(puts.size() >= 4 * 3000, "PUTs done: " + puts.size());
    double seconds = (puts.get(puts.size() - 1).completeMicros() - puts.get(0).invokeMicros()) / 1e6;
    double meanMillis = puts.stream().mapToLong(op -> op.completeMicros() - op.invokeMicros()).average().orElse(0) / 1000;
    System.out.printf("gentlerain: %d PUTs in %.2f s of virtual time (%.0f per server per second), mean %.2f ms%n",
        puts.size(), seconds, puts.size() / seconds / 2, meanMillis);
    assertTrue(puts.size() / seconds / 2 > 2000, "each server should take well over 1,000 PUTs a second");
    assertTrue(meanMillis < 0.6, "PUTs waited for update times ahead of the clock: mean " + meanMillis + " ms");
  }

  @Test
  void when_sameSeedRunsTwice_then_runsAreIdentical() {
    SimSpec spec = GentleRainCheckedSimTest.FAULTY;
    SimResult a = new Simulation(spec, new GentleRain(), 42).run();
    SimResult b = new Simulation(spec, new GentleRain(), 42).run();
    assertTrue(a.history().size() > 100, "the run should do work: " + a.history().size());
    assertEquals(a.history().operations(), b.history().operations());
    assertEquals(a.trace().fingerprint(), b.trace().fingerprint());
    assertEquals(a.deliveries(), b.deliveries());
    SimResult c = new Simulation(spec, new GentleRain(), 43).run();
    assertFalse(a.history().operations().equals(c.history().operations()), "another seed gives another run");
  }

  /**
   * Mutant: GET ignores GST and returns the newest version (Alg 8.1's visibility rule dropped). The photo/album
   * scenario catches it every time; random faulty runs catch it too, but rarely (2-3 seeds in 100), so they sweep
   * 100 seeds.
   */
  @Test
  void when_getIgnoresGst_then_causalCheckerCatchesIt() {
    Protocol mutant = new GetIgnoresGst();
    Scenarios.PhotoAlbum scenario = Scenarios.photoAlbum(mutant, 7);
    SimResult photoAlbum = scenario.run();
    assertEquals(Optional.empty(), scenario.bobReadsPhoto().readValue(), "the mutant shows Bob the album without the photo");
    assertFalse(new CausalChecker().check(photoAlbum.history()).valid(), "the causal checker flags the photo/album run");
    SimSpec spec = GentleRainCheckedSimTest.FAULTY.withWorkload(GentleRainCheckedSimTest.FAULTY.workload().withKeys(5));
    for (long seed = 1; seed <= 100; seed++) {
      SeedReport r = SimRunner.run(spec, mutant, seed, List.of("causal"));
      if (!r.checks().get(0).valid()) {
        return;
      }
    }
    throw new AssertionError("the GST-ignoring GET was not caught by the causal checker within 100 seeds");
  }

}
