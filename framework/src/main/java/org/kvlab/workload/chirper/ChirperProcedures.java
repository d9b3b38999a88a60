package org.kvlab.workload.chirper;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.TxnProcedure;
import org.kvlab.api.TxnProcedures;
import org.kvlab.workload.Fields;

/**
 * Chirper's procedures (seed 002 §5.4; keys in {@link ChirperKeys}):
 * <ul>
 *   <li>{@code chirper.post(graph, u, id, cap)} over {@code user:<u>:followers} and the timelines of the followers
 *       the client knows of: appends post {@code id} to the timeline of every declared user who follows u by the list
 *       read (keeping the newest {@code cap}); a declared user who does not follow u is left alone. Not key-local: a
 *       timeline's write depends on the follower list read at another key.
 *   <li>{@code chirper.follow(graph, u, v)} over {@code user:<v>:followers} and {@code user:<u>:follows}: u follows
 *       v. Key-local (each list gains one id).
 *   <li>{@code chirper.timeline(u)} over {@code user:<u>:timeline}: reads u's timeline, writes nothing.
 * </ul>
 * {@code graph} is the initial {@link FollowerGraph}'s spec ({@code users/m/seed}): an absent list is read as the
 * user's initial one.
 */
public final class ChirperProcedures {
  private ChirperProcedures() {}

  public static final String POST = "chirper.post";
  public static final String FOLLOW = "chirper.follow";
  public static final String TIMELINE = "chirper.timeline";

  /** The three procedures, for {@link TxnProcedures}. */
  public static List<TxnProcedure> all() {
    return List.of(new Post(), new Follow(), new Timeline());
  }

  private static int user(String name, String what, String value, int users, String form) {
    TxnProcedures.wholeNumber(name, what, value, form);
    long u = Long.parseLong(value);
    if (u < 0 || u >= users) {
      throw new IllegalArgumentException("procedure " + name + ": " + what + " " + u + " is not a user of the graph's"
          + " 0.." + (users - 1) + ". Fix: " + form);
    }
    return (int) u;
  }

  private static FollowerGraph.Spec graph(String name, String text, String form) {
    try {
      return FollowerGraph.Spec.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("procedure " + name + ": " + e.getMessage() + " (" + form + ")");
    }
  }

  private static void size(String name, List<String> args, int n, String form) {
    if (args.size() != n) {
      throw new IllegalArgumentException("procedure " + name + " takes " + n + " arguments, got " + args + ". Fix: "
          + form);
    }
  }

  private static final class Post implements TxnProcedure {
    static final String FORM = "chirper.post(graph users/m/seed, u, id, cap) over user:<u>:followers and followers'"
        + " user:<f>:timeline keys";

    @Override
    public String name() {
      return POST;
    }

    @Override
    public boolean keyLocal() {
      return false;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      size(POST, args, 4, FORM);
      FollowerGraph.Spec g = graph(POST, args.get(0), FORM);
      int u = user(POST, "the poster", args.get(1), g.users(), FORM);
      TxnProcedures.wholeNumber(POST, "the post id", args.get(2), FORM);
      TxnProcedures.wholeNumber(POST, "the timeline cap", args.get(3), FORM);
      if (Long.parseLong(args.get(3)) < 1) {
        throw new IllegalArgumentException("procedure " + POST + ": the timeline cap must be at least 1, got "
            + args.get(3) + ". Fix: " + FORM);
      }
      if (!keys.contains(ChirperKeys.followers(u))) {
        throw new IllegalArgumentException("procedure " + POST + ": the keys " + keys + " lack "
            + ChirperKeys.followers(u) + ", the poster's followers. Fix: " + FORM);
      }
      for (String k : keys) {
        if (!k.equals(ChirperKeys.followers(u)) && (!"timeline".equals(ChirperKeys.kind(k))
            || ChirperKeys.user(k) >= g.users())) {
          throw new IllegalArgumentException("procedure " + POST + ": key " + k + " is neither the poster's follower"
              + " list nor a user's timeline. Fix: " + FORM);
        }
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      FollowerGraph graph = FollowerGraph.of(FollowerGraph.Spec.parse(args.get(0)));
      int u = Integer.parseInt(args.get(1));
      String id = args.get(2);
      int cap = (int) Math.min(Integer.MAX_VALUE, Long.parseLong(args.get(3)));
      TreeSet<Integer> followers = ChirperKeys.list(read.get(ChirperKeys.followers(u)), graph.followers(u));
      Map<String, ByteString> out = new TreeMap<>();
      read.forEach((k, v) -> {
        if ("timeline".equals(ChirperKeys.kind(k)) && followers.contains(ChirperKeys.user(k))) {
          Fields t = Fields.of(v);
          String kept = newest(t.text("posts"), cap - 1);
          out.put(k, t.add("n", 1).set("posts", kept.isEmpty() ? id : kept + "," + id).bytes());
        }
      });
      return out;
    }
  }

  /** The last {@code keep} entries of a comma-separated list (a scan of its characters, no parsing). */
  static String newest(String list, int keep) {
    if (list.isEmpty() || keep <= 0) {
      return "";
    }
    int seen = 0;
    for (int i = list.length() - 1; i >= 0; i--) {
      if (list.charAt(i) == ',' && ++seen == keep) {
        return list.substring(i + 1);
      }
    }
    return list;
  }

  private static final class Follow implements TxnProcedure {
    static final String FORM = "chirper.follow(graph users/m/seed, u, v): u follows v, over user:<v>:followers and"
        + " user:<u>:follows";

    @Override
    public String name() {
      return FOLLOW;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      size(FOLLOW, args, 3, FORM);
      FollowerGraph.Spec g = graph(FOLLOW, args.get(0), FORM);
      int u = user(FOLLOW, "the follower", args.get(1), g.users(), FORM);
      int v = user(FOLLOW, "the user followed", args.get(2), g.users(), FORM);
      if (u == v) {
        throw new IllegalArgumentException("procedure " + FOLLOW + ": user " + u + " cannot follow itself. Fix: "
            + FORM);
      }
      if (!new TreeSet<>(keys).equals(new TreeSet<>(List.of(ChirperKeys.followers(v), ChirperKeys.follows(u))))) {
        throw new IllegalArgumentException("procedure " + FOLLOW + ": the keys must be exactly "
            + ChirperKeys.followers(v) + " and " + ChirperKeys.follows(u) + ", got " + keys + ". Fix: " + FORM);
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      FollowerGraph graph = FollowerGraph.of(FollowerGraph.Spec.parse(args.get(0)));
      int u = Integer.parseInt(args.get(1));
      int v = Integer.parseInt(args.get(2));
      Map<String, ByteString> out = new TreeMap<>();
      if (read.containsKey(ChirperKeys.followers(v))) {
        TreeSet<Integer> f = ChirperKeys.list(read.get(ChirperKeys.followers(v)), graph.followers(v));
        f.add(u);
        out.put(ChirperKeys.followers(v), ChirperKeys.list(f));
      }
      if (read.containsKey(ChirperKeys.follows(u))) {
        TreeSet<Integer> f = ChirperKeys.list(read.get(ChirperKeys.follows(u)), graph.follows(u));
        f.add(v);
        out.put(ChirperKeys.follows(u), ChirperKeys.list(f));
      }
      return out;
    }
  }

  private static final class Timeline implements TxnProcedure {
    static final String FORM = "chirper.timeline(u) over user:<u>:timeline";

    @Override
    public String name() {
      return TIMELINE;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      size(TIMELINE, args, 1, FORM);
      int u = user(TIMELINE, "the user", args.get(0), Integer.MAX_VALUE, FORM);
      if (!keys.equals(List.of(ChirperKeys.timeline(u)))) {
        throw new IllegalArgumentException("procedure " + TIMELINE + ": the keys must be exactly "
            + ChirperKeys.timeline(u) + ", got " + keys + ". Fix: " + FORM);
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      return Map.of();
    }
  }
}
