package org.kvlab.check;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Collects the ids of the operations a violation names, in order, without duplicates. */
final class Ids {
  private final HistoryModel m;
  private final Set<Long> ids = new LinkedHashSet<>();

  Ids(HistoryModel m) {
    this.m = m;
  }

  Ids add(int... ops) {
    if (ops != null) {
      for (int op : ops) {
        if (op >= 0) {
          ids.add(m.id(op));
        }
      }
    }
    return this;
  }

  List<Long> list() {
    return List.copyOf(new ArrayList<>(ids));
  }
}
