package org.kvlab.workload.chirper;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Chirper's keys and values. Per user u three keys, one key group {@code user:<u>}:
 * <ul>
 *   <li>{@code user:<u>:followers}: the users who follow u, ascending ids separated by one blank;
 *   <li>{@code user:<u>:follows}: the users u follows, same form;
 *   <li>{@code user:<u>:timeline}: the posts of the users u follows, oldest first: {@code n=<posts ever appended>
 *       posts=<id>,<id>,...}, at most the timeline cap of the newest kept.
 * </ul>
 * An absent follower or follows list is the user's list in the initial {@link FollowerGraph}; an absent timeline is
 * empty.
 */
public final class ChirperKeys {
  private ChirperKeys() {}

  public static final String PREFIX = "user:";

  public static String followers(int u) {
    return PREFIX + u + ":followers";
  }

  public static String follows(int u) {
    return PREFIX + u + ":follows";
  }

  public static String timeline(int u) {
    return PREFIX + u + ":timeline";
  }

  /** The user a Chirper key belongs to, or -1 if it is not one. */
  public static int user(String key) {
    if (!key.startsWith(PREFIX)) {
      return -1;
    }
    int colon = key.indexOf(':', PREFIX.length());
    try {
      return colon < 0 ? -1 : Integer.parseInt(key.substring(PREFIX.length(), colon));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The kind of a Chirper key: followers, follows or timeline (null if not one). */
  public static String kind(String key) {
    int u = user(key);
    if (u < 0) {
      return null;
    }
    String kind = key.substring(key.indexOf(':', PREFIX.length()) + 1);
    return kind.equals("followers") || kind.equals("follows") || kind.equals("timeline") ? kind : null;
  }

  /** A follower or follows list read ({@code initial} when absent). */
  public static TreeSet<Integer> list(Optional<ByteString> v, int[] initial) {
    TreeSet<Integer> out = new TreeSet<>();
    if (v == null || v.isEmpty()) {
      for (int i : initial) {
        out.add(i);
      }
      return out;
    }
    for (String s : v.get().toStringUtf8().trim().split(" +")) {
      try {
        out.add(Integer.parseInt(s));
      } catch (NumberFormatException e) {
        // skipped: parsing is total
      }
    }
    return out;
  }

  /** A follower or follows list as stored. */
  public static ByteString list(TreeSet<Integer> ids) {
    StringBuilder out = new StringBuilder();
    for (int i : ids) {
      out.append(out.length() == 0 ? "" : " ").append(i);
    }
    return ByteString.copyFromUtf8(out.toString());
  }

  /** A timeline's post ids, oldest first. */
  public static List<Long> posts(org.kvlab.workload.Fields timeline) {
    List<Long> out = new ArrayList<>();
    for (String s : timeline.text("posts").split(",")) {
      try {
        out.add(Long.parseLong(s));
      } catch (NumberFormatException e) {
        // skipped (the empty list, or a malformed entry)
      }
    }
    return out;
  }
}
