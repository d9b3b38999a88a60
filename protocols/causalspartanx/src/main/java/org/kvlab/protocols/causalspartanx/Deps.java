package org.kvlab.protocols.causalspartanx;

import java.util.List;
import java.util.TreeMap;
import org.kvlab.api.Invariants;

/** Dependency sets (DS: at most one ⟨dc, time⟩ per datacenter) and stable vectors (one time per datacenter). */
final class Deps {
  private Deps() {}

  /** maxDS(ds1, ds2) of Alg 5.1: entry-wise max, adding entries of ds2 missing from ds1. Mutates and returns ds1. */
  static TreeMap<Integer, Long> maxDS(TreeMap<Integer, Long> ds1, List<DcTime> ds2) {
    for (DcTime e : ds2) {
      ds1.merge(e.getDc(), e.getTime(), Math::max);
    }
    return ds1;
  }

  static TreeMap<Integer, Long> of(List<DcTime> ds) {
    return maxDS(new TreeMap<>(), ds);
  }

  static List<DcTime> toProto(TreeMap<Integer, Long> ds) {
    // loops, not streams, here and in toList: they run for every request, reply and record
    DcTime[] out = new DcTime[ds.size()];
    int i = 0;
    for (java.util.Map.Entry<Integer, Long> e : ds.entrySet()) {
      out[i++] = DcTime.newBuilder().setDc(e.getKey()).setTime(e.getValue()).build();
    }
    return List.of(out);
  }

  /** maxDS(d.ds, {⟨d.sr, d.ut⟩}): the dependencies a reader of d takes on (Alg 5.2 line 4, Alg 5.4 line 23). */
  static TreeMap<Integer, Long> withSelf(Record d) {
    TreeMap<Integer, Long> ds = of(d.getDsList());
    ds.merge(d.getSr(), d.getUt(), Math::max);
    return ds;
  }

  /**
   * {@code toProto(withSelf(d))} without the map: d's entries and ⟨d.sr, d.ut⟩, the larger time per datacenter, in
   * ascending datacenter order (a DS has at most one entry per datacenter, so a handful of entries: insertion sort).
   */
  static List<DcTime> withSelfProto(Record d) {
    int n = d.getDsCount();
    int[] dcs = new int[n + 1];
    long[] times = new long[n + 1];
    int size = 0;
    for (int i = 0; i <= n; i++) {
      int dc = i < n ? d.getDs(i).getDc() : d.getSr();
      long time = i < n ? d.getDs(i).getTime() : d.getUt();
      int at = 0;
      while (at < size && dcs[at] < dc) {
        at++;
      }
      if (at < size && dcs[at] == dc) {
        times[at] = Math.max(times[at], time); // TreeMap.merge(dc, time, Math::max)
        continue;
      }
      System.arraycopy(dcs, at, dcs, at + 1, size - at);
      System.arraycopy(times, at, times, at + 1, size - at);
      dcs[at] = dc;
      times[at] = time;
      size++;
    }
    DcTime[] out = new DcTime[size];
    for (int i = 0; i < size; i++) {
      out[i] = DcTime.newBuilder().setDc(dcs[i]).setTime(times[i]).build();
    }
    return List.of(out);
  }

  /** Invariant (§5.2.1): a DS has at most one entry per datacenter. */
  static void checkOnePerDc(List<DcTime> ds, int datacenters) {
    boolean distinct = true; // a loop, not a stream: it runs for every request and record (a DS has few entries)
    for (int i = 0; i < ds.size() && distinct; i++) {
      for (int j = 0; j < i && distinct; j++) {
        distinct = ds.get(i).getDc() != ds.get(j).getDc();
      }
    }
    Invariants.check(distinct && ds.size() <= datacenters,
        "DS has more than one entry per datacenter or too many entries: %s", ds);
  }

  /** DSV ← max(DSV, v) entry-wise (Alg 5.2 line 2, Alg 5.4 line 10); a short or empty v changes nothing. */
  static void maxInto(long[] dsv, List<Long> v) {
    for (int i = 0; i < Math.min(dsv.length, v.size()); i++) {
      dsv[i] = Math.max(dsv[i], v.get(i));
    }
  }

  static List<Long> toList(long[] v) {
    Long[] out = new Long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i];
    }
    return List.of(out);
  }
}
