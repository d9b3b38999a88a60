package org.kvlab.partitioning.operations;

import java.util.Locale;
import java.util.Map;

/** The classification as the seed's Table 1: per type its class and partitioning parameter; shares per class. */
public final class ClassificationTable {
  private ClassificationTable() {}

  public static String render(OperationPartitioning.Result r) {
    StringBuilder b = new StringBuilder();
    int width = Math.max(4, r.assignments().stream().mapToInt(a -> a.type().name().length()).max().orElse(4));
    b.append(String.format(Locale.ROOT, "%-" + width + "s  %-5s  %-9s  %7s%n", "type", "class", "parameter", "weight"));
    for (OperationPartitioning.Assignment a : r.assignments()) {
      b.append(String.format(Locale.ROOT, "%-" + width + "s  %-5s  %-9s  %7s%n", a.type().name(), a.cls(),
          a.cls() == OperationClass.C || a.param() == null ? "-" : a.param(), trim(a.type().weight())));
    }
    Map<OperationClass, Long> counts = new java.util.EnumMap<>(OperationClass.class);
    r.assignments().forEach(a -> counts.merge(a.cls(), 1L, Long::sum));
    b.append(String.format(Locale.ROOT, "types: L=%d G=%d C=%d; weighted: L %.0f%%, G %.0f%%, C %.0f%%;"
        + " cost %s (%d combinations searched)%n", counts.getOrDefault(OperationClass.L, 0L),
        counts.getOrDefault(OperationClass.G, 0L), counts.getOrDefault(OperationClass.C, 0L),
        100 * r.shares().get(OperationClass.L), 100 * r.shares().get(OperationClass.G),
        100 * r.shares().get(OperationClass.C), trim(r.cost()), r.combinations()));
    for (OperationPartitioning.Assignment a : r.assignments()) {
      if (a.cls() == OperationClass.G) {
        b.append(a.type().name()).append(" is global: ").append(a.reasons().get(0));
        if (a.reasons().size() > 1) {
          b.append(" (and ").append(a.reasons().size() - 1).append(" more)");
        }
        b.append('\n');
      }
    }
    return b.toString();
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
