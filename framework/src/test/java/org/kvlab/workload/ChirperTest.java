package org.kvlab.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.Result;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.chirper.ChirperInvariants;
import org.kvlab.workload.chirper.ChirperKeys;
import org.kvlab.workload.chirper.ChirperProcedures;
import org.kvlab.workload.chirper.FollowerGraph;

/**
 * Goal: Chirper draws DynaStar's mix (85% timeline, 15% post) with Zipf 0.95 active users over a power-law follower
 * graph, injects a celebrity at the chosen time, its procedures are deterministic and refuse malformed calls with the
 * fix, and its invariants hold on a correct run and catch planted violations. Method: fixed seeds, a serial reference
 * run ({@link SerialRun}).
 */
class ChirperTest {
  @Test
  void when_theGraphIsGrown_then_earlyUsersCollectFollowers_andEveryJoiningUserFollowsM() {
    FollowerGraph g = FollowerGraph.of(new FollowerGraph.Spec(2000, 3, 1));
    int edges = 0;
    int top = 0;
    for (int u = 0; u < 2000; u++) {
      assertEquals(Math.min(u, 3), g.follows(u).length, "user " + u + " follows min(u, m) on joining");
      edges += g.followerCount(u);
      top = Math.max(top, g.followerCount(u));
    }
    assertEquals(3 * 2000 - 6, edges, "every follow is one follower");
    assertTrue(top > 60, "preferential attachment: a hub with many followers (mean 3), got " + top);
    assertTrue(g.followerCount(0) > 10 * g.followerCount(1999) + 10, "the first user collects more than the last");
    assertEquals(g.followers(5).length, FollowerGraph.of(new FollowerGraph.Spec(2000, 3, 1)).followers(5).length);
  }

  @Test
  void when_theGraphHasCommunities_then_followsStayInside_butForTheCrossShare_andHubsRemain() {
    FollowerGraph.Spec spec = new FollowerGraph.Spec(2000, 5, 1).withCommunities(8, 0.05);
    FollowerGraph g = FollowerGraph.of(spec);
    int edges = 0;
    int inside = 0;
    int top = 0;
    for (int u = 0; u < 2000; u++) {
      assertEquals(Math.min(u, 5), g.follows(u).length, "user " + u + " follows min(u, m) on joining");
      for (int f : g.follows(u)) {
        edges++;
        inside += spec.communityOf(f) == spec.communityOf(u) ? 1 : 0;
      }
      top = Math.max(top, g.followerCount(u));
    }
    double share = inside / (double) edges;
    assertTrue(share > 0.92 && share < 0.99, "about 95% of follows inside the community (the first joiners of each"
        + " follow across: they have no earlier neighbour yet), got " + share);
    assertTrue(top > 60, "preferential attachment inside communities still makes hubs (mean 5), got " + top);
    assertEquals(spec, FollowerGraph.Spec.parse(spec.toString()), "the text form travels in procedures' arguments");
    assertEquals("2000/5/1/8/0.05", spec.toString());
    assertEquals("2000/5/1", new FollowerGraph.Spec(2000, 5, 1).toString(), "one community: the old form, the old graph");
    assertArrayEquals(g.followers(7), FollowerGraph.of(FollowerGraph.Spec.parse("2000/5/1/8/0.05")).followers(7));
  }

  @Test
  void when_theCelebrityAppearsOnACommunalGraph_then_itsNewFollowersAreOneCommunity() {
    Chirper w = Chirper.of(300).withCommunities(6, 0.05).withCelebrityAt(0);
    Chirper.Generator g = (Chirper.Generator) w.generator();
    Random r = new Random(5);
    for (int i = 0; i < 600; i++) {
      g.next(r, 0, 1, i);
    }
    int fans = 0;
    int others = 0;
    java.util.Set<Integer> initial = new java.util.HashSet<>();
    for (int f : FollowerGraph.of(w.graph()).followers(299)) {
      initial.add(f);
    }
    for (int f = 0; f < 299; f++) {
      if (!initial.contains(f) && g.follows(f, 299)) {
        if (w.graph().communityOf(f) == (w.graph().communityOf(299) + 1) % 6) {
          fans++;
        } else {
          others++;
        }
      }
    }
    assertTrue(fans >= 45, "its fans' community (50 users) follows it: " + fans);
    assertEquals(0, others, "nobody from elsewhere");
    for (int i = 0; i < 2000; i++) {
      g.next(r, 0, 2, 1000 + i);
    }
    assertTrue(g.followerCount(299) < 100, "not everyone follows it, however long: " + g.followerCount(299));
  }

  @Test
  void when_manyOperationsAreDrawn_then_theMixIs85_15_andUsersAreZipf095() {
    Chirper w = Chirper.of(500);
    TxnFamily.Generator g = w.generator();
    Random r = new Random(3);
    int n = 60_000;
    int posts = 0;
    int[] byUser = new int[500];
    for (int i = 0; i < n; i++) {
      TxnRequest q = g.next(r, i % 7, 0, i);
      posts += q.procedure().equals(ChirperProcedures.POST) ? 1 : 0;
      byUser[Integer.parseInt(q.args().get(q.procedure().equals(ChirperProcedures.TIMELINE) ? 0 : 1))]++;
    }
    assertEquals(0.15, posts / (double) n, 0.01);
    double[] cdf = Zipf.cdf(500, 0.95);
    assertEquals(cdf[0], byUser[0] / (double) n, 0.01, "user 0 is rank 1");
    assertEquals(Math.pow(2, 0.95), byUser[0] / (double) byUser[1], 0.15, "p(1)/p(2) = 2^0.95");
    assertEquals(Math.pow(10, 0.95), byUser[0] / (double) byUser[9], 1.2, "p(1)/p(10) = 10^0.95");
  }

  @Test
  void when_theCelebrityAppears_then_usersFollowItAndItsPostsReachThem() {
    Chirper w = Chirper.of(300).withCelebrityAt(5_000_000);
    Chirper.Generator g = (Chirper.Generator) w.generator();
    Random r = new Random(5);
    int before = g.followerCount(299);
    for (int i = 0; i < 2000; i++) {
      TxnRequest q = g.next(r, 0, 4_999_999, i);
      assertFalse(q.procedure().equals(ChirperProcedures.FOLLOW), "no follow before the celebrity: " + q.describe());
    }
    assertEquals(before, g.followerCount(299));
    int celebrityPosts = 0;
    int widest = 0;
    for (int i = 0; i < 2000; i++) {
      TxnRequest q = g.next(r, 0, 5_000_000 + i, 10_000 + i);
      if (q.procedure().equals(ChirperProcedures.POST) && q.args().get(1).equals("299")) {
        celebrityPosts++;
        widest = Math.max(widest, q.keys().size());
      }
    }
    assertTrue(g.followerCount(299) > 250, "20% of 2000 operations follow it: " + g.followerCount(299));
    assertEquals(200, celebrityPosts, 45, "10% of operations are its posts");
    assertTrue(widest > 200, "its late posts declare hundreds of timelines: " + widest);
  }

  @Test
  void when_aPostRuns_then_itReachesTheFollowersItReads_andIsDeterministic() {
    FollowerGraph.Spec spec = new FollowerGraph.Spec(50, 2, 9);
    TxnRequest q = TxnRequest.procedure(ChirperProcedures.POST, List.of(ChirperKeys.followers(3), ChirperKeys.timeline(7),
        ChirperKeys.timeline(8)), spec.toString(), "3", "42", "2");
    Map<String, Optional<ByteString>> read = new TreeMap<>();
    read.put(ChirperKeys.followers(3), Optional.of(ByteString.copyFromUtf8("7 11")));
    read.put(ChirperKeys.timeline(7), Optional.of(ByteString.copyFromUtf8("n=5 posts=1,2")));
    read.put(ChirperKeys.timeline(8), Optional.empty());
    Map<String, ByteString> w = TxnProcedures.run(q.procedure(), q.args(), read);
    assertEquals(w, TxnProcedures.run(q.procedure(), q.args(), read));
    assertEquals(Map.of(ChirperKeys.timeline(7), ByteString.copyFromUtf8("n=6 posts=2,42")), w,
        "user 8 does not follow 3 by the list read; the cap 2 keeps the newest");
    assertFalse(TxnProcedures.isKeyLocal(ChirperProcedures.POST));
    TxnRequest f = TxnRequest.procedure(ChirperProcedures.FOLLOW, List.of(ChirperKeys.followers(3),
        ChirperKeys.follows(9)), spec.toString(), "9", "3");
    Map<String, Optional<ByteString>> none = new TreeMap<>();
    f.keys().forEach(k -> none.put(k, Optional.empty()));
    Map<String, ByteString> fw = TxnProcedures.run(f.procedure(), f.args(), none);
    assertTrue(ChirperKeys.list(Optional.of(fw.get(ChirperKeys.followers(3))), new int[0]).contains(9));
    assertTrue(ChirperKeys.list(Optional.of(fw.get(ChirperKeys.follows(9))), new int[0]).contains(3));
    FollowerGraph g = FollowerGraph.of(spec);
    assertEquals(g.followers(3).length + (contains(g.followers(3), 9) ? 0 : 1),
        ChirperKeys.list(Optional.of(fw.get(ChirperKeys.followers(3))), new int[0]).size(),
        "an absent list is the initial graph's, plus the new follower");
  }

  private static boolean contains(int[] a, int x) {
    return java.util.Arrays.stream(a).anyMatch(i -> i == x);
  }

  @Test
  void when_aCallIsMalformed_then_itIsRefusedWithTheForm() {
    IllegalArgumentException noFollowers = assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(
        ChirperProcedures.POST, List.of(ChirperKeys.timeline(7)), "50/2/9", "3", "42", "10"));
    assertTrue(noFollowers.getMessage().contains("user:3:followers") && noFollowers.getMessage().contains("Fix:"),
        noFollowers.getMessage());
    IllegalArgumentException self = assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(
        ChirperProcedures.FOLLOW, List.of(ChirperKeys.followers(3), ChirperKeys.follows(3)), "50/2/9", "3", "3"));
    assertTrue(self.getMessage().contains("cannot follow itself") && self.getMessage().contains("Fix:"),
        self.getMessage());
    IllegalArgumentException graph = assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(
        ChirperProcedures.FOLLOW, List.of(ChirperKeys.followers(3), ChirperKeys.follows(4)), "fifty", "4", "3"));
    assertTrue(graph.getMessage().contains("users/m/seed") && graph.getMessage().contains("Fix:"),
        graph.getMessage());
    IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> TxnRequest.procedure(
        ChirperProcedures.TIMELINE, List.of(ChirperKeys.timeline(-1)), "-1"));
    assertTrue(range.getMessage().contains("Fix:"), range.getMessage());
  }

  @Test
  void when_keysAreGrouped_then_aUsersThreeKeysBelongTogether() {
    Chirper w = Chirper.of(10);
    assertEquals("user:4", w.group(ChirperKeys.timeline(4)));
    assertEquals("user:4", w.group(ChirperKeys.followers(4)));
    assertEquals("user:4", w.group(ChirperKeys.follows(4)));
    assertEquals(null, w.group("user:4:avatar"));
  }

  @Test
  void when_aCorrectRunIsChecked_then_everyInvariantHolds_andEachPlantedViolationIsCaught() {
    Chirper w = Chirper.of(200).withShares(0.3, 0.1).withCelebrityAt(1_000_000);
    SerialRun run = new SerialRun().run(w, 3000, 5, 17, 1000);
    Result ok = new WorkloadChecker().check(run.history());
    assertTrue(ok.valid() && !ok.vacuous(), ok.toString());
    String busy = run.store.keySet().stream().filter(k -> k.endsWith(":timeline")).findFirst().orElseThrow();
    Result lost = new WorkloadChecker().check(run.history(m -> {
      m.remove(busy); // every post's write to it lost
      return m;
    }));
    assertTrue(lost.violations().stream().anyMatch(v -> v.kind().equals(ChirperInvariants.LOST)), lost.toString());
    Result twice = new WorkloadChecker().check(run.history(m -> {
      String v = m.get(busy).toStringUtf8();
      String first = v.replaceFirst(".*posts=(\\d+).*", "$1");
      m.put(busy, ByteString.copyFromUtf8(v + "," + first));
      return m;
    }));
    assertTrue(twice.violations().stream().anyMatch(v -> v.kind().equals(ChirperInvariants.STRAY)
        && v.explanation().contains("twice")), twice.toString());
    String followed = run.store.keySet().stream().filter(k -> k.endsWith(":followers")).findFirst().orElseThrow();
    Result halfFollow = new WorkloadChecker().check(run.history(m -> {
      m.put(followed, ByteString.copyFromUtf8(m.get(followed).toStringUtf8() + " 199 198 197"));
      return m;
    }));
    assertTrue(halfFollow.violations().stream().anyMatch(v -> v.kind().equals(ChirperInvariants.SYMMETRY)),
        halfFollow.toString());
  }
}
