package org.kvlab.protocols.epaxos;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The interference table of one replica: per key, the highest seq seen and, per leader replica, its highest
 * committed instance on the key and its instances on the key not committed here yet. Two commands interfere when
 * they share a key. A new command's dependencies on a key are, per replica, that highest committed instance and the
 * uncommitted ones above it: the committed one reaches every earlier instance of its replica on the key through its
 * own dependencies (by induction), while an uncommitted one may still become a no-op in recovery, so it cannot
 * stand for the instances below it (EPaxos's "highest interfering instance per replica" alone would lose them).
 */
final class Conflicts {
  private static final class KeyState {
    long maxSeq;
    final Map<Integer, Long> lastCommitted = new HashMap<>();
    final Map<Integer, TreeSet<Long>> open = new HashMap<>();
  }

  private final Map<String, KeyState> keys = new HashMap<>();

  /** 1 + the highest seq of a command interfering with {@code c} (0 for a no-op). */
  long seqFor(Command c) {
    long max = 0;
    for (String k : c.getKeysList()) {
      KeyState s = keys.get(k);
      max = s == null ? max : Math.max(max, s.maxSeq);
    }
    return c.getKeysCount() == 0 ? 0 : max + 1;
  }

  /** Adds to {@code into} the instances {@code c} (at instance {@code self}) depends on by this table. */
  void addDeps(Command c, long self, SortedSet<Long> into) {
    for (String k : c.getKeysList()) {
      KeyState s = keys.get(k);
      if (s == null) {
        continue;
      }
      s.lastCommitted.forEach((r, i) -> {
        if (i != self) {
          into.add(i);
        }
      });
      s.open.forEach((r, set) -> {
        Long floor = s.lastCommitted.get(r);
        for (long i : floor == null ? set : set.tailSet(floor, false)) {
          if (i != self) {
            into.add(i);
          }
        }
      });
    }
  }

  /** Instance {@code id} holds command {@code c} with {@code seq}, not committed here. */
  void open(long id, Command c, long seq) {
    for (String k : c.getKeysList()) {
      KeyState s = keys.computeIfAbsent(k, x -> new KeyState());
      s.maxSeq = Math.max(s.maxSeq, seq);
      Long last = s.lastCommitted.get(Ids.replica(id));
      if (last == null || last != id) {
        s.open.computeIfAbsent(Ids.replica(id), r -> new TreeSet<>()).add(id);
      }
    }
  }

  /** Instance {@code id} held {@code before} (null if unknown) and committed {@code c} with {@code seq}. */
  void committed(long id, Command before, Command c, long seq) {
    if (before != null) {
      forget(id, before);
    }
    for (String k : c.getKeysList()) {
      KeyState s = keys.computeIfAbsent(k, x -> new KeyState());
      s.maxSeq = Math.max(s.maxSeq, seq);
      TreeSet<Long> set = s.open.get(Ids.replica(id));
      if (set != null) {
        set.remove(id);
      }
      s.lastCommitted.merge(Ids.replica(id), id, Math::max);
    }
  }

  /** Instance {@code id} no longer holds {@code before} (it was replaced before commit). */
  void forget(long id, Command before) {
    for (String k : before.getKeysList()) {
      KeyState s = keys.get(k);
      TreeSet<Long> set = s == null ? null : s.open.get(Ids.replica(id));
      if (set != null) {
        set.remove(id);
      }
    }
  }
}
