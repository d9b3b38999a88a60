package org.kvlab.workload.chirper;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.workload.FinalState;
import org.kvlab.workload.Fields;
import org.kvlab.workload.WorkloadInvariants;

/**
 * Chirper's invariants at quiescence, per final reader:
 * <ul>
 *   <li>{@value #SYMMETRY}: v is among u's followers exactly when u is among the users v follows (a follow writes
 *       both lists in one transaction; absent lists are the initial graph's, which is symmetric);
 *   <li>{@value #LOST}: a post that ended OK is on the timeline of every declared user its follower list (as the
 *       post read it) names, unless that timeline has dropped old posts (more appended than its cap keeps);
 *   <li>{@value #STRAY}: every post on a timeline is a post of the history that declared that timeline, written only
 *       if the owner was among the followers the post read (OK posts), and at most once.
 * </ul>
 */
public final class ChirperInvariants implements WorkloadInvariants {
  public static final String SYMMETRY = "chirper: follower lists disagree";
  public static final String LOST = "chirper: post missing from a follower's timeline";
  public static final String STRAY = "chirper: stray post on a timeline";

  @Override
  public String family() {
    return Chirper.NAME;
  }

  @Override
  public long transactions(History history) {
    return ops(history).size();
  }

  private static List<Operation> ops(History history) {
    List<Operation> out = new ArrayList<>();
    for (Operation op : history.operations()) {
      TxnRequest q = op.type() == Operation.Type.TXN && op.txn() != null ? op.txn().request() : null;
      if (q != null && q.procedure() != null && q.procedure().startsWith(Chirper.NAME + ".")) {
        out.add(op);
      }
    }
    return out;
  }

  @Override
  public List<Violation> check(History history, FinalState state, int max) {
    FollowerGraph graph = null;
    Map<Long, Operation> posts = new LinkedHashMap<>();
    for (Operation op : ops(history)) {
      TxnRequest q = op.txn().request();
      if (!q.procedure().equals(ChirperProcedures.TIMELINE)) {
        graph = graph != null ? graph : FollowerGraph.of(FollowerGraph.Spec.parse(q.args().get(0)));
      }
      if (q.procedure().equals(ChirperProcedures.POST) && op.outcome() != Operation.Outcome.FAIL) {
        posts.put(Long.parseLong(q.args().get(2)), op);
      }
    }
    Map<Long, java.util.Set<String>> declared = new HashMap<>();
    Map<Long, TreeSet<Integer>> followersRead = new HashMap<>();
    for (var p : posts.entrySet()) {
      TxnRequest q = p.getValue().txn().request();
      declared.put(p.getKey(), new java.util.HashSet<>(q.reads()));
      if (p.getValue().ok()) {
        int u = Integer.parseInt(q.args().get(1));
        followersRead.put(p.getKey(), ChirperKeys.list(p.getValue().reads().get(ChirperKeys.followers(u)),
            graph.followers(u)));
      }
    }
    List<Violation> out = new ArrayList<>();
    Map<String, Integer> found = new HashMap<>();
    for (var reader : state.readers().entrySet()) {
      Map<String, Optional<ByteString>> s = reader.getValue();
      String who = "final reader " + reader.getKey();
      if (graph != null) {
        symmetry(graph, s, who, out, found, max);
      }
      Map<String, Fields> timelines = new java.util.TreeMap<>(); // violations reported in key order
      Map<String, java.util.Set<Long>> onTimeline = new HashMap<>();
      s.forEach((k, v) -> {
        if ("timeline".equals(ChirperKeys.kind(k))) {
          timelines.put(k, Fields.of(v));
          onTimeline.put(k, new java.util.HashSet<>(ChirperKeys.posts(timelines.get(k))));
        }
      });
      for (Operation op : posts.values()) {
        if (!op.ok()) {
          continue;
        }
        TxnRequest q = op.txn().request();
        int u = Integer.parseInt(q.args().get(1));
        long id = Long.parseLong(q.args().get(2));
        TreeSet<Integer> read = followersRead.get(id);
        for (String k : q.reads()) {
          if (!"timeline".equals(ChirperKeys.kind(k)) || !read.contains(ChirperKeys.user(k))) {
            continue;
          }
          Fields t = timelines.getOrDefault(k, Fields.of(Optional.empty()));
          java.util.Set<Long> on = onTimeline.getOrDefault(k, java.util.Set.of());
          if (!on.contains(id) && t.number("n") <= on.size()) {
            WorkloadInvariants.report(out, found, max, LOST, who + ": post " + id + " by user " + u + " ended OK"
                + " and read user " + ChirperKeys.user(k) + " among its followers, but " + k + " = \"" + t
                + "\" lacks it, and that timeline dropped no post: the post's write to it was lost or undone",
                List.of(op.id()));
          }
        }
      }
      for (var e : timelines.entrySet()) {
        TreeSet<Long> seen = new TreeSet<>();
        int owner = ChirperKeys.user(e.getKey());
        for (long id : ChirperKeys.posts(e.getValue())) {
          Operation op = posts.get(id);
          String why = null;
          if (!seen.add(id)) {
            why = "appears twice: the post was applied twice";
          } else if (op == null) {
            why = "is no post of the history (out of thin air)";
          } else if (!declared.get(id).contains(e.getKey())) {
            why = "was written by a post that did not declare this timeline";
          } else if (op.ok() && !followersRead.get(id).contains(owner)) {
            why = "was written although user " + owner + " was not among the followers the post read";
          }
          if (why != null) {
            WorkloadInvariants.report(out, found, max, STRAY, who + ": post " + id + " on " + e.getKey() + " " + why,
                op == null ? List.of() : List.of(op.id()));
          }
        }
      }
    }
    return out;
  }

  private static void symmetry(FollowerGraph graph, Map<String, Optional<ByteString>> s, String who,
      List<Violation> out, Map<String, Integer> found, int max) {
    int users = graph.spec().users();
    List<TreeSet<Integer>> followers = new ArrayList<>();
    List<TreeSet<Integer>> follows = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      followers.add(ChirperKeys.list(s.get(ChirperKeys.followers(u)), graph.followers(u)));
      follows.add(ChirperKeys.list(s.get(ChirperKeys.follows(u)), graph.follows(u)));
    }
    for (int u = 0; u < users; u++) {
      for (int v : followers.get(u)) {
        if (v < 0 || v >= users || !follows.get(v).contains(u)) {
          WorkloadInvariants.report(out, found, max, SYMMETRY, who + ": user " + v + " is among user " + u + "'s followers, but user " + u
              + " is not among the users " + v + " follows: a follow was applied to one list only", List.of());
        }
      }
      for (int v : follows.get(u)) {
        if (v < 0 || v >= users || !followers.get(v).contains(u)) {
          WorkloadInvariants.report(out, found, max, SYMMETRY, who + ": user " + u + " follows user " + v + ", but is not among " + v
              + "'s followers: a follow was applied to one list only", List.of());
        }
      }
    }
  }
}
