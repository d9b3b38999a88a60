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
    if (n <= 1) { // the common cases (a DS of one datacenter, or none), without the arrays; entries reused as they are
      DcTime e = n == 0 ? null : d.getDs(0);
      if (e != null && e.getDc() == d.getSr() && e.getTime() >= d.getUt()) {
        return List.of(e);
      }
      DcTime self = DcTime.newBuilder().setDc(d.getSr()).setTime(d.getUt()).build();
      if (e == null || e.getDc() == d.getSr()) {
        return List.of(self);
      }
      return e.getDc() < d.getSr() ? List.of(e, self) : List.of(self, e);
    }
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

  /** A datacenter with no entry in a dependency set kept as an array ({@link #maxDS(long[], List)}). */
  static final long ABSENT = Long.MIN_VALUE;

  /**
   * maxDS(ds1, ds2) for ds1 kept as an array indexed by datacenter ({@link #ABSENT}: no entry), the client's DS_c
   * without a map: entry-wise max, adding the entries of ds2 missing from ds1. A datacenter outside the array is a
   * server's error (its DS names a datacenter the topology does not have).
   */
  static void maxDS(long[] ds1, List<DcTime> ds2) {
    for (int i = 0; i < ds2.size(); i++) {
      DcTime e = ds2.get(i);
      put(ds1, e.getDc(), e.getTime());
    }
  }

  /** maxDS(ds, {⟨dc, time⟩}) for ds kept as an array. */
  static void put(long[] ds, int dc, long time) {
    if (dc < 0 || dc >= ds.length) {
      throw new IllegalStateException("dependency entry for datacenter " + dc + ", but the cluster has " + ds.length
          + " datacenters: the server runs another topology or build; run the same cluster file and kvlab build");
    }
    ds[dc] = ds[dc] == ABSENT ? time : Math.max(ds[dc], time);
  }

  /** An empty dependency set kept as an array (one slot per datacenter). */
  static long[] emptyArray(int datacenters) {
    long[] ds = new long[datacenters];
    java.util.Arrays.fill(ds, ABSENT);
    return ds;
  }

  /** {@code toProto} of a dependency set kept as an array: its entries in ascending datacenter order. */
  static List<DcTime> toProto(long[] ds) {
    int n = 0;
    for (long t : ds) {
      n += t == ABSENT ? 0 : 1;
    }
    DcTime[] out = new DcTime[n];
    int at = 0;
    for (int dc = 0; dc < ds.length; dc++) {
      if (ds[dc] != ABSENT) {
        out[at++] = DcTime.newBuilder().setDc(dc).setTime(ds[dc]).build();
      }
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

  /** Every entry of {@code ds} has a time below {@code ut} (Obs 7 for a version of update time ut). */
  static boolean allBelow(List<DcTime> ds, long ut) {
    for (int i = 0; i < ds.size(); i++) {
      if (ds.get(i).getTime() >= ut) {
        return false;
      }
    }
    return true;
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
