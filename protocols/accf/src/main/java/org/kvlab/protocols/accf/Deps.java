package org.kvlab.protocols.accf;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Dependency sets: at most one {@code <tracking group, time>} per tracking group (seed 003 §7.2.1). */
final class Deps {
  private Deps() {}

  /** max(into, ds): entry-wise maximum, in place. */
  static void maxInto(TreeMap<Integer, Long> into, List<TgTime> ds) {
    for (TgTime e : ds) {
      into.merge(e.getTg(), e.getTime(), Math::max);
    }
  }

  static List<TgTime> toProto(Map<Integer, Long> ds) {
    List<TgTime> out = new ArrayList<>(ds.size());
    ds.forEach((tg, t) -> out.add(TgTime.newBuilder().setTg(tg).setTime(t).build()));
    return out;
  }

  /** Null if ds is well formed for {@code trackingGroups} groups, else what is wrong with it. */
  static String problem(List<TgTime> ds, int trackingGroups) {
    boolean[] seen = new boolean[trackingGroups];
    for (TgTime e : ds) {
      if (e.getTg() < 0 || e.getTg() >= trackingGroups) {
        return "dependency on tracking group " + e.getTg() + ", but there are " + trackingGroups;
      }
      if (seen[e.getTg()]) {
        return "two dependency entries for tracking group " + e.getTg();
      }
      if (e.getTime() < 0) {
        return "negative dependency time " + e.getTime();
      }
      seen[e.getTg()] = true;
    }
    return null;
  }
}
