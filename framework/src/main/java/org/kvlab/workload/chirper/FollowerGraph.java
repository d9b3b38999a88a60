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
 *
 * <p><b>Communities</b> ({@code communities} > 1): user u belongs to community {@code u % communities} (they grow
 * side by side, each with its own early hubs), and each follow of a joining user is drawn by preferential attachment
 * among the earlier users of its own community, except a share {@code crossShare} drawn among all earlier users (a
 * cross-community follow, which favours the global hubs). Real social graphs have such communities (the Higgs graph
 * has), and they are what a partitioner can keep together: without them (one community, the default) a placement
 * can keep few posts inside one partition.
 */
public final class FollowerGraph {
  /**
   * A graph's parameters; its text form {@code users/m/seed} (e.g. {@code 1000/5/1}) travels as the first argument
   * of Chirper's procedures.
   */
  public record Spec(int users, int m, long seed, int communities, double crossShare) {
    public Spec {
      if (users < 2 || users > 10_000_000 || m < 1 || m >= users) {
        throw new IllegalArgumentException("a follower graph needs 2 to 10,000,000 users and 1 <= m < users follows"
            + " per joining user, got users=" + users + ", m=" + m + ". Fix: e.g. 1000 users, m=5");
      }
      if (communities < 1 || communities > users || !(crossShare >= 0 && crossShare <= 1)) {
        throw new IllegalArgumentException("a follower graph needs 1 to users communities and a cross-community share"
            + " from 0 to 1, got communities=" + communities + ", crossShare=" + crossShare + ". Fix: e.g. 8"
            + " communities, 0.05");
      }
    }

    /** One community: the plain preferential-attachment graph. */
    public Spec(int users, int m, long seed) {
      this(users, m, seed, 1, 0);
    }

    /** The same graph size, in {@code c} communities with a share {@code cross} of cross-community follows. */
    public Spec withCommunities(int c, double cross) {
      return new Spec(users, m, seed, c, cross);
    }

    /** Whether the graph has communities (else it is the plain preferential-attachment graph). */
    public boolean communal() {
      return communities > 1 || crossShare > 0;
    }

    /** The community of user {@code u}. */
    public int communityOf(int u) {
      return u % communities;
    }

    /**
     * The spec written as {@code users/m/seed}, or {@code users/m/seed/communities/crossShare}.
     *
     * @throws IllegalArgumentException naming the form
     */
    public static Spec parse(String text) {
      String[] p = text.split("/", -1);
      try {
        if (p.length != 3 && p.length != 5) {
          throw new NumberFormatException();
        }
        Spec s = new Spec(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Long.parseLong(p[2]));
        return p.length == 3 ? s : s.withCommunities(Integer.parseInt(p[3]), Double.parseDouble(p[4]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("the follower graph '" + text + "' is not users/m/seed or"
            + " users/m/seed/communities/crossShare. Fix: e.g. 1000/5/1 or 1000/5/1/8/0.05");
      }
    }

    @Override
    public String toString() {
      return users + "/" + m + "/" + seed + (communal() ? "/" + communities + "/" + crossShare : "");
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
    if (spec.communal()) {
      grow(spec, r, in, out);
    } else {
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
    }
    followers = toArrays(in);
    follows = toArrays(out);
  }

  /**
   * Preferential attachment inside communities: an urn per community and one of everyone (user u in them
   * followers + 1 times); a follow is drawn from the joining user's community's urn, or from everyone's with
   * probability crossShare (and when its community has no earlier user it does not follow yet).
   */
  private static void grow(Spec spec, SplittableRandom r, List<TreeSet<Integer>> in, List<TreeSet<Integer>> out) {
    int c = spec.communities();
    List<IntUrn> local = new ArrayList<>();
    for (int k = 0; k < c; k++) {
      local.add(new IntUrn());
    }
    IntUrn all = new IntUrn();
    for (int v = 0; v < spec.users(); v++) {
      int k = spec.communityOf(v);
      int earlierHere = v / c; // users k, k + c, ... joined before v
      int want = Math.min(v, spec.m());
      int here = 0;
      while (out.get(v).size() < want) {
        boolean cross = here >= earlierHere || (spec.crossShare() > 0 && r.nextDouble() < spec.crossShare());
        int t = (cross ? all : local.get(k)).draw(r);
        if (out.get(v).add(t)) {
          in.get(t).add(v);
          local.get(spec.communityOf(t)).add(t);
          all.add(t);
          here += spec.communityOf(t) == k ? 1 : 0;
        }
      }
      local.get(k).add(v);
      all.add(v);
    }
  }

  /** A growable multiset of user ids drawn uniformly (an id in it n times is n times as likely). */
  private static final class IntUrn {
    private int[] items = new int[16];
    private int size;

    void add(int u) {
      if (size == items.length) {
        items = java.util.Arrays.copyOf(items, size * 2);
      }
      items[size++] = u;
    }

    int draw(SplittableRandom r) {
      return items[r.nextInt(size)];
    }
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
