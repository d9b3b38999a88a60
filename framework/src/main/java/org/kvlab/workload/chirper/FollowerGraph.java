package org.kvlab.workload.chirper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chirper's initial follower graph, grown by preferential attachment (Barabási–Albert): users join in id order, and
 * user v (v ≥ 1) follows {@code min(v, m)} distinct earlier users, each chosen with probability proportional to its
 * followers plus one. Early users collect many followers, later ones few: in-degrees follow a power law, as the
 * Higgs Twitter graph DynaStar used (seed 002 §6). The graph is a pure function of its {@link Spec}, built once per
 * JVM and shared, so that procedures (which read an absent follower list as the user's initial one), generators and
 * checkers agree on it without a load phase.
 */
public final class FollowerGraph {
  /**
   * A graph's parameters; its text form {@code users/m/seed} (e.g. {@code 1000/5/1}) travels as the first argument
   * of Chirper's procedures.
   */
  public record Spec(int users, int m, long seed) {
    public Spec {
      if (users < 2 || users > 10_000_000 || m < 1 || m >= users) {
        throw new IllegalArgumentException("a follower graph needs 2 to 10,000,000 users and 1 <= m < users follows"
            + " per joining user, got users=" + users + ", m=" + m + ". Fix: e.g. 1000 users, m=5");
      }
    }

    /**
     * The spec written as {@code users/m/seed}.
     *
     * @throws IllegalArgumentException naming the form
     */
    public static Spec parse(String text) {
      String[] p = text.split("/", -1);
      try {
        if (p.length != 3) {
          throw new NumberFormatException();
        }
        return new Spec(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Long.parseLong(p[2]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("the follower graph '" + text + "' is not users/m/seed. Fix: e.g."
            + " 1000/5/1");
      }
    }

    @Override
    public String toString() {
      return users + "/" + m + "/" + seed;
    }
  }

  private static final Map<Spec, FollowerGraph> BUILT = new ConcurrentHashMap<>();

  private final Spec spec;
  private final int[][] followers;
  private final int[][] follows;

  private FollowerGraph(Spec spec) {
    this.spec = spec;
    List<TreeSet<Integer>> in = new ArrayList<>();
    List<TreeSet<Integer>> out = new ArrayList<>();
    for (int u = 0; u < spec.users(); u++) {
      in.add(new TreeSet<>());
      out.add(new TreeSet<>());
    }
    SplittableRandom r = new SplittableRandom(spec.seed());
    int[] urn = new int[spec.users() * (spec.m() + 1)]; // user u appears (followers + 1) times
    int size = 0;
    urn[size++] = 0;
    for (int v = 1; v < spec.users(); v++) {
      int want = Math.min(v, spec.m());
      while (out.get(v).size() < want) {
        int t = urn[r.nextInt(size)];
        if (out.get(v).add(t)) {
          in.get(t).add(v);
          urn[size++] = t;
        }
      }
      urn[size++] = v;
    }
    followers = toArrays(in);
    follows = toArrays(out);
  }

  private static int[][] toArrays(List<TreeSet<Integer>> sets) {
    int[][] a = new int[sets.size()][];
    for (int i = 0; i < a.length; i++) {
      a[i] = sets.get(i).stream().mapToInt(Integer::intValue).toArray();
    }
    return a;
  }

  /** The graph of {@code spec} (built once per JVM). */
  public static FollowerGraph of(Spec spec) {
    return BUILT.computeIfAbsent(spec, FollowerGraph::new);
  }

  public Spec spec() {
    return spec;
  }

  /** User u's initial followers, ascending. */
  public int[] followers(int u) {
    return followers[u].clone();
  }

  /** The users u initially follows, ascending. */
  public int[] follows(int u) {
    return follows[u].clone();
  }

  /** How many followers u has initially. */
  public int followerCount(int u) {
    return followers[u].length;
  }
}
