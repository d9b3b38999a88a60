package org.kvlab.protocols.dynastar;

import java.util.Map;
import java.util.TreeMap;

/**
 * Deterministic duplicate detection in a replicated partition's state: per sender (a client session, a group's
 * outbox), the numbers seen at or above the sender's low-water mark, which the sender carries on every message (its
 * lowest number still unanswered or outstanding: nothing below it can come again but as a stale repeat). A number is
 * fresh the first time the group delivers it; every replica takes the same decision since it is a function of the
 * group's delivery sequence. A destination keeps its reply with the number, to answer a client's retry.
 */
final class Dedup<K extends Comparable<K>> {
  private final TreeMap<K, Long> low = new TreeMap<>();
  private final TreeMap<K, TreeMap<Long, ExecReply>> seen = new TreeMap<>();

  /**
   * Whether number {@code n} of {@code sender} is new (then it is recorded); {@code senderLow} raises the sender's
   * mark and forgets the numbers below it.
   */
  boolean fresh(K sender, long n, long senderLow) {
    long l = Math.max(low.getOrDefault(sender, 0L), senderLow);
    low.put(sender, l);
    TreeMap<Long, ExecReply> s = seen.computeIfAbsent(sender, x -> new TreeMap<>());
    s.headMap(l).clear();
    if (n < l || s.containsKey(n)) {
      return false;
    }
    s.put(n, ExecReply.getDefaultInstance());
    return true;
  }

  /** Keeps the reply given to number {@code n} (if it is still remembered). */
  void answered(K sender, long n, ExecReply reply) {
    TreeMap<Long, ExecReply> s = seen.get(sender);
    if (s != null && s.containsKey(n)) {
      s.put(n, reply);
    }
  }

  /** The reply given to number {@code n}, or null (none, or forgotten). */
  ExecReply answer(K sender, long n) {
    TreeMap<Long, ExecReply> s = seen.get(sender);
    ExecReply r = s == null ? null : s.get(n);
    return r == null || r.equals(ExecReply.getDefaultInstance()) ? null : r;
  }

  Map<K, Seen> save() {
    Map<K, Seen> out = new TreeMap<>();
    low.forEach((k, l) -> out.put(k, Seen.newBuilder().setLow(l).putAllSeen(seen.getOrDefault(k, new TreeMap<>()))
        .build()));
    return out;
  }

  void load(Map<K, Seen> saved) {
    low.clear();
    seen.clear();
    saved.forEach((k, s) -> {
      low.put(k, s.getLow());
      seen.put(k, new TreeMap<>(s.getSeenMap()));
    });
  }
}
