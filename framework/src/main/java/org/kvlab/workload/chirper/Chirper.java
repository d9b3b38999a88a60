package org.kvlab.workload.chirper;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import org.kvlab.api.TxnRequest;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.Zipf;

/**
 * Chirper, DynaStar's Twitter-like workload (seed 002 §5.4, §6.4; ../shared/reference digest B.3): users on a
 * power-law follower graph ({@link FollowerGraph}), each operation by an active user drawn by Zipf ({@code zipf},
 * 0.95 as the paper; user 0, the earliest and most followed, the most active): {@code chirper.timeline} (reads the
 * user's timeline; the rest of the mix), {@code chirper.post} (a share {@code postShare}, 0.15: the paper's mix is
 * 85% timeline / 15% post) and {@code chirper.follow} (a share {@code followShare}, 0 by default: the user follows a
 * user drawn by the same Zipf whom it does not follow yet). See {@link ChirperProcedures} for what each does.
 *
 * <p>A <b>celebrity</b> appears at {@code celebrityAtMicros} (the paper: 200 s; negative = never): from then on a
 * share {@code celebrityFollowShare} of the operations are {@code follow(x, celebrity)} by a user x drawn uniformly
 * among those who do not follow it yet, and a share {@code celebrityPostShare} are posts by the celebrity, whose
 * posts reach ever more timelines ("the celebrity user posted more frequently, and other users started following the
 * celebrity"). The celebrity is user {@code celebrity} (default: the last to join, with the fewest followers). On a
 * graph with communities ({@link FollowerGraph.Spec#communities()} > 1) its new followers are its <b>fans</b>: users
 * of one community, the one after the celebrity's own ({@code (c + 1) % communities}): "many users started
 * following" it (not everyone), and they come from elsewhere in the graph, so the celebrity's posts span partitions
 * until a repartition brings it to its fans.
 *
 * <p>A post declares the timelines of every follower the generator knows of: the generator keeps the follower graph
 * as it issued follows (a superset of what the store holds while follows are in flight), so within one generator no
 * follower is ever missed. Several generators (YCSB client processes) do not see each other's follows: a post misses
 * the followers another process added, and the invariants judge each post against the timelines it declared.
 *
 * @param graph the initial follower graph
 * @param zipf the Zipf exponent of the active user
 * @param postShare the share of posts
 * @param followShare the share of follows
 * @param timelineCap posts kept per timeline (the newest)
 * @param celebrityAtMicros when the celebrity appears, in microseconds since the run began; negative = never
 * @param celebrity the celebrity's user id
 * @param celebrityFollowShare after celebrityAtMicros, the share of operations that are follows of the celebrity
 * @param celebrityPostShare after celebrityAtMicros, the share of operations that are the celebrity's posts
 */
public record Chirper(FollowerGraph.Spec graph, double zipf, double postShare, double followShare, int timelineCap,
    long celebrityAtMicros, int celebrity, double celebrityFollowShare, double celebrityPostShare)
    implements TxnFamily {
  public static final String NAME = "chirper";

  public Chirper {
    if (!(zipf >= 0 && zipf <= 10)) {
      throw new IllegalArgumentException("chirper: the Zipf exponent must be from 0 to 10, got " + zipf
          + ". Fix: e.g. 0.95");
    }
    for (double share : new double[] {postShare, followShare, celebrityFollowShare, celebrityPostShare}) {
      if (!(share >= 0 && share <= 1)) {
        throw new IllegalArgumentException("chirper: shares are from 0 to 1, got " + share + ". Fix: e.g. post"
            + " share 0.15");
      }
    }
    if (postShare + followShare > 1 || celebrityFollowShare + celebrityPostShare > 1) {
      throw new IllegalArgumentException("chirper: post and follow shares add up to more than 1 (" + postShare + " + "
          + followShare + ", celebrity " + celebrityFollowShare + " + " + celebrityPostShare + "). Fix: lower them");
    }
    if (timelineCap < 1) {
      throw new IllegalArgumentException("chirper: the timeline cap must be at least 1 post, got " + timelineCap
          + ". Fix: e.g. 1000");
    }
    if (celebrity < 0 || celebrity >= graph.users()) {
      throw new IllegalArgumentException("chirper: the celebrity " + celebrity + " is not a user of 0.."
          + (graph.users() - 1) + ". Fix: give a user id in that range");
    }
  }

  /**
   * The paper's mix (85% timeline, 15% post, Zipf 0.95) over {@code users} users who follow 5 earlier users each on
   * joining (graph seed 1), timelines of 1,000 posts, no celebrity (the last user would be it, with a 20% share of
   * follows and 10% of posts).
   */
  public static Chirper of(int users) {
    return new Chirper(new FollowerGraph.Spec(users, Math.min(5, users - 1), 1), 0.95, 0.15, 0, 1000, -1, users - 1,
        0.2, 0.1);
  }

  public Chirper withCelebrityAt(long micros) {
    return new Chirper(graph, zipf, postShare, followShare, timelineCap, micros, celebrity, celebrityFollowShare,
        celebrityPostShare);
  }

  public Chirper withShares(double post, double follow) {
    return new Chirper(graph, zipf, post, follow, timelineCap, celebrityAtMicros, celebrity, celebrityFollowShare,
        celebrityPostShare);
  }

  /** The same workload on a follower graph of {@code communities} communities, {@code crossShare} of follows across. */
  public Chirper withCommunities(int communities, double crossShare) {
    return new Chirper(graph.withCommunities(communities, crossShare), zipf, postShare, followShare, timelineCap,
        celebrityAtMicros, celebrity, celebrityFollowShare, celebrityPostShare);
  }

  public Chirper withTimelineCap(int cap) {
    return new Chirper(graph, zipf, postShare, followShare, cap, celebrityAtMicros, celebrity, celebrityFollowShare,
        celebrityPostShare);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** {@code user:<u>}: a user's follower list, follows list and timeline belong together. */
  @Override
  public String group(String key) {
    int u = ChirperKeys.kind(key) == null ? -1 : ChirperKeys.user(key);
    return u < 0 ? null : "user:" + u;
  }

  @Override
  public TxnFamily.Generator generator() {
    return new Generator(this);
  }

  /** Draws Chirper's operations, keeping the follower graph as it issued follows. */
  public static final class Generator implements TxnFamily.Generator {
    private final Chirper w;
    private final String graphText;
    private final List<TreeSet<Integer>> followers = new ArrayList<>();
    private final List<TreeSet<Integer>> follows = new ArrayList<>();
    /** Who may start following the celebrity; null: anyone (a graph without communities). */
    private final int[] fans;

    Generator(Chirper w) {
      this.w = w;
      this.fans = w.graph().communities() > 1 ? fans(w) : null;
      this.graphText = w.graph().toString();
      FollowerGraph g = FollowerGraph.of(w.graph());
      for (int u = 0; u < w.graph().users(); u++) {
        TreeSet<Integer> in = new TreeSet<>();
        for (int f : g.followers(u)) {
          in.add(f);
        }
        TreeSet<Integer> out = new TreeSet<>();
        for (int f : g.follows(u)) {
          out.add(f);
        }
        followers.add(in);
        follows.add(out);
      }
    }

    /** Whether the generator knows {@code u} to follow {@code v}. */
    public synchronized boolean follows(int u, int v) {
      return follows.get(u).contains(v);
    }

    /** How many followers the generator knows {@code u} to have. */
    public synchronized int followerCount(int u) {
      return followers.get(u).size();
    }

    @Override
    public synchronized TxnRequest next(RandomGenerator r, int session, long nowMicros, long unique) {
      int users = w.graph().users();
      if (w.celebrityAtMicros() >= 0 && nowMicros >= w.celebrityAtMicros()) {
        double c = r.nextDouble();
        if (c < w.celebrityFollowShare() && followers.get(w.celebrity()).size() < users - 1) {
          for (int tries = 0; tries < 64; tries++) {
            int x = fan(r);
            if (x != w.celebrity() && !followers.get(w.celebrity()).contains(x)) {
              return follow(x, w.celebrity());
            }
          }
        } else if (c >= w.celebrityFollowShare() && c < w.celebrityFollowShare() + w.celebrityPostShare()) {
          return post(w.celebrity(), unique);
        }
      }
      int u = Zipf.draw(r, users, w.zipf());
      double p = r.nextDouble();
      if (p < w.postShare()) {
        return post(u, unique);
      }
      if (p < w.postShare() + w.followShare() && follows.get(u).size() < users - 1) {
        for (int tries = 0; tries < 64; tries++) {
          int v = Zipf.draw(r, users, w.zipf());
          if (v != u && !follows.get(u).contains(v)) {
            return follow(u, v);
          }
        }
      }
      return TxnRequest.procedure(ChirperProcedures.TIMELINE, List.of(ChirperKeys.timeline(u)), Integer.toString(u));
    }

    /** A user who may start following the celebrity: anyone, or on a graph with communities one of its fans. */
    private int fan(RandomGenerator r) {
      return fans == null ? r.nextInt(w.graph().users()) : fans[r.nextInt(fans.length)];
    }

    /** The celebrity's fans on a graph with communities: the users of the community after its own. */
    private static int[] fans(Chirper w) {
      FollowerGraph.Spec g = w.graph();
      int community = (g.communityOf(w.celebrity()) + 1) % g.communities();
      return java.util.stream.IntStream.range(0, g.users())
          .filter(u -> u != w.celebrity() && g.communityOf(u) == community).toArray();
    }

    private TxnRequest post(int u, long id) {
      List<String> keys = new ArrayList<>();
      keys.add(ChirperKeys.followers(u));
      for (int f : followers.get(u)) {
        keys.add(ChirperKeys.timeline(f));
      }
      return TxnRequest.procedure(ChirperProcedures.POST, keys, graphText, Integer.toString(u), Long.toString(id),
          Integer.toString(w.timelineCap()));
    }

    private TxnRequest follow(int u, int v) {
      followers.get(v).add(u);
      follows.get(u).add(v);
      return TxnRequest.procedure(ChirperProcedures.FOLLOW, List.of(ChirperKeys.followers(v), ChirperKeys.follows(u)),
          graphText, Integer.toString(u), Integer.toString(v));
    }
  }
}
