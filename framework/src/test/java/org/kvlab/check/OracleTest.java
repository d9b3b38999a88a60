package org.kvlab.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * The polynomial checkers against brute-force definitions on thousands of tiny histories of a weak replicated store
 * ({@link ReplicaSimulation}): causal+ by enumerating arbitration orders, linearizability by enumerating orders,
 * ROTX against the causal checker's verdicts on the same ROTXs.
 */
class OracleTest {
  private static final int RUNS = 3000;

  @Test
  void when_tinyHistoriesAreChecked_then_causalAgreesWithEnumeratingArbitrationOrders() {
    int valid = 0;
    int validGlobal = 0;
    for (long s = 0; s < RUNS; s++) {
      final long seed = s;
      History h = ReplicaSimulation.run(seed, 4, 2 + (int) (seed % 2), 2, 10 + (int) (seed % 5), seed % 3 == 0,
          (int) (seed % 4) * 10);
      boolean expected = bruteCausal(h, false);
      boolean actual = new CausalChecker().check(h).valid();
      assertEquals(expected, actual, () -> "seed " + seed + " per-key\n" + dump(h)
          + Verdicts.show(new CausalChecker().check(h)));
      boolean expectedGlobal = bruteCausal(h, true);
      Result global = CausalChecker.withGlobalArbitration().check(h);
      assertEquals(expectedGlobal, global.valid(), () -> "seed " + seed + " global\n" + dump(h) + Verdicts.show(global));
      valid += expected ? 1 : 0;
      validGlobal += expectedGlobal ? 1 : 0;
    }
    System.out.printf("causal oracle: %d of %d tiny histories valid per key, %d globally%n", valid, RUNS, validGlobal);
    assertTrue(valid > RUNS / 10 && valid < RUNS * 9 / 10, "both verdicts exercised: " + valid);
  }

  @Test
  void when_tinyHistoriesAreChecked_then_linearizabilityAgreesWithEnumeratingOrders() {
    int valid = 0;
    for (long s = 0; s < RUNS; s++) {
      final long seed = s;
      History h = overlap(ReplicaSimulation.run(seed, 3, 2, 2, 8 + (int) (seed % 4), seed % 2 == 0, 20), seed);
      boolean expected = bruteLinearizable(h);
      Result r = new LinearizabilityChecker().check(h);
      assertEquals(expected, r.valid(), () -> "zones, seed " + seed + "\n" + dump(h) + Verdicts.show(r));
      Result search = LinearizabilityChecker.searchOnly(1_000_000).check(h);
      assertEquals(expected, search.valid(), () -> "search, seed " + seed + "\n" + dump(h) + Verdicts.show(search));
      valid += expected ? 1 : 0;
    }
    System.out.printf("linearizability oracle: %d of %d tiny histories valid%n", valid, RUNS);
    assertTrue(valid > RUNS / 20 && valid < RUNS * 19 / 20, "both verdicts exercised: " + valid);
  }

  @Test
  void when_tinyHistoriesAreChecked_then_rotxFlagsExactlyTheRotxsTheCausalCheckerFlags() {
    int flagged = 0;
    for (long s = 0; s < RUNS; s++) {
      final long seed = s;
      History h = ReplicaSimulation.run(seed, 3, 2, 3, 12, false, 10);
      Set<Long> rotxs = new HashSet<>();
      h.operations().stream().filter(o -> o.type() == Type.ROTX).forEach(o -> rotxs.add(o.id()));
      Set<Long> byCausal = new TreeSet<>();
      for (Violation v : new CausalChecker().check(h).violations()) {
        if ((v.kind().equals(CausalChecker.WRITE_CO_READ) || v.kind().equals(CausalChecker.WRITE_CO_INIT_READ))
            && rotxs.contains(v.operations().get(0))) {
          byCausal.add(v.operations().get(0));
        }
      }
      Set<Long> byRotx = new TreeSet<>();
      for (Violation v : new RotxChecker().check(h).violations()) {
        byRotx.add(v.operations().get(0));
      }
      assertEquals(byCausal, byRotx, () -> "seed " + seed + "\n" + dump(h));
      flagged += byRotx.size();
    }
    assertTrue(flagged > 0, "some ROTX anomalies exercised");
  }

  @Test
  void when_tinyHistoriesAreChecked_then_sessionFlagsExactlyTheReadsTheNaiveDefinitionFlags() {
    int flagged = 0;
    for (long s = 0; s < RUNS; s++) {
      final long seed = s;
      History h = ReplicaSimulation.run(seed, 3, 2, 2, 14, seed % 2 == 0, 30);
      Set<Long> expected = bruteSession(h);
      Set<Long> actual = new TreeSet<>();
      for (Violation v : new SessionChecker().check(h).violations()) {
        actual.add(v.operations().get(0));
      }
      assertEquals(expected, actual, () -> "seed " + seed + "\n" + dump(h)
          + Verdicts.show(new SessionChecker().check(h)));
      flagged += expected.size();
    }
    assertTrue(flagged > 100, "session anomalies exercised: " + flagged);
  }

  // ---- brute force ----

  /**
   * Reads that break a session guarantee, by the naive definition: per key, ≺ = (so|k ∪ rf|k)⁺; a read of k by c is
   * stale if it returns nil or a value ≺ c's latest own OK write of k (≠ it), or nil after c read a value of k, or a
   * value ≺ a value c read before.
   */
  static Set<Long> bruteSession(History h) {
    List<Operation> ops = h.operations();
    int n = ops.size();
    Map<String, Integer> writer = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Operation o = ops.get(i);
      if (o.type() == Type.PUT && o.outcome() != Outcome.FAIL) {
        writer.put(o.key() + "=" + o.value().toStringUtf8(), i);
      }
    }
    Set<String> keys = new TreeSet<>();
    ops.forEach(o -> {
      if (o.key() != null) {
        keys.add(o.key());
      }
      if (o.reads() != null) {
        keys.addAll(o.reads().keySet());
      }
    });
    Set<Long> out = new TreeSet<>();
    for (String k : keys) {
      boolean[] touches = new boolean[n];
      int[] src = new int[n];
      for (int i = 0; i < n; i++) {
        Operation o = ops.get(i);
        boolean node = o.ok() || (o.type() == Type.PUT && o.outcome() == Outcome.INFO);
        src[i] = -3;
        if (node && o.type() == Type.PUT) {
          touches[i] = o.key().equals(k);
        } else if (node && o.reads() != null && o.reads().containsKey(k)) {
          touches[i] = true;
          var v = o.reads().get(k);
          Integer w = v.isPresent() ? writer.get(k + "=" + v.get().toStringUtf8()) : Integer.valueOf(-1);
          src[i] = w == null ? -2 : w;
        }
      }
      boolean[][] before = new boolean[n][n];
      Map<Integer, Integer> lastOk = new HashMap<>();
      for (int i = 0; i < n; i++) {
        if (!touches[i]) {
          continue;
        }
        Integer p = lastOk.get(ops.get(i).session());
        if (p != null) {
          before[p][i] = true;
        }
        if (ops.get(i).ok()) {
          lastOk.put(ops.get(i).session(), i);
        }
        if (src[i] >= 0) {
          before[src[i]][i] = true;
        }
      }
      for (int m = 0; m < n; m++) {
        for (int i = 0; i < n; i++) {
          if (before[i][m]) {
            for (int j = 0; j < n; j++) {
              before[i][j] |= before[m][j];
            }
          }
        }
      }
      boolean cyclic = false;
      for (int i = 0; i < n; i++) {
        cyclic |= touches[i] && before[i][i];
      }
      if (cyclic) {
        throw new AssertionError("the simulation never reads from the future");
      }
      for (int i = 0; i < n; i++) {
        if (!touches[i] || src[i] < -1) {
          continue;
        }
        int c = ops.get(i).session();
        int own = -1;
        List<Integer> readBefore = new ArrayList<>();
        for (int j = 0; j < i; j++) {
          Operation o = ops.get(j);
          if (!touches[j] || o.session() != c || !o.ok()) {
            continue;
          }
          if (o.type() == Type.PUT) {
            own = j;
          } else if (src[j] >= 0) {
            readBefore.add(src[j]);
          }
        }
        int w = src[i];
        boolean stale = own >= 0 && w != own && (w < 0 || before[w][own]);
        stale |= w < 0 && !readBefore.isEmpty();
        for (int f : readBefore) {
          stale |= w >= 0 && w != f && before[w][f];
        }
        if (stale) {
          out.add(ops.get(i).id());
        }
      }
    }
    return out;
  }

  /** Spreads operations over overlapping intervals so that real-time order is partial. */
  private static History overlap(History h, long seed) {
    java.util.Random rnd = new java.util.Random(seed);
    List<Operation> out = new ArrayList<>();
    for (Operation o : h.operations()) {
      long inv = o.invokeMicros() * 3;
      out.add(new Operation(o.id(), o.session(), o.dc(), o.type(), o.key(), o.value(), o.reads(), inv,
          inv + rnd.nextInt(6), o.outcome(), o.error()));
    }
    return new History(out);
  }

  /** Causal+ by definition: hb = (so ∪ rf)⁺ acyclic, and an arbitration order exists that every read agrees with. */
  static boolean bruteCausal(History h, boolean global) {
    List<Operation> ops = h.operations();
    int n = ops.size();
    Map<String, Integer> writer = new HashMap<>();
    boolean[] node = new boolean[n];
    for (int i = 0; i < n; i++) {
      Operation o = ops.get(i);
      node[i] = o.ok() || (o.type() == Type.PUT && o.outcome() == Outcome.INFO);
      if (o.type() == Type.PUT && o.outcome() != Outcome.FAIL) {
        writer.put(o.key() + "=" + o.value().toStringUtf8(), i);
      }
    }
    boolean[][] hb = new boolean[n][n];
    Map<Integer, Integer> lastOk = new HashMap<>();
    List<int[]> readList = new ArrayList<>(); // {reader, source or -1, keyIndex}
    List<String> keyNames = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!node[i]) {
        continue;
      }
      Operation o = ops.get(i);
      Integer p = lastOk.get(o.session());
      if (p != null) {
        hb[p][i] = true;
      }
      if (o.ok()) {
        lastOk.put(o.session(), i);
      }
      if (o.reads() != null && o.type() != Type.PUT) {
        for (var e : o.reads().entrySet()) {
          int src = -1;
          if (e.getValue().isPresent()) {
            Integer w = writer.get(e.getKey() + "=" + e.getValue().get().toStringUtf8());
            if (w == null) {
              return false; // thin air (or failed write)
            }
            src = w;
            hb[w][i] = true;
          }
          if (!keyNames.contains(e.getKey())) {
            keyNames.add(e.getKey());
          }
          readList.add(new int[] {i, src, keyNames.indexOf(e.getKey())});
        }
      }
    }
    for (int k = 0; k < n; k++) {
      for (int i = 0; i < n; i++) {
        if (hb[i][k]) {
          for (int j = 0; j < n; j++) {
            hb[i][j] |= hb[k][j];
          }
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (hb[i][i]) {
        return false;
      }
    }
    // writes per arbitration domain
    Map<String, List<Integer>> domains = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Operation o = ops.get(i);
      if (node[i] && o.type() == Type.PUT) {
        domains.computeIfAbsent(global ? "" : o.key(), k -> new ArrayList<>()).add(i);
      }
    }
    // initial reads: no write of the key may precede them
    for (int[] r : readList) {
      if (r[1] < 0) {
        for (int i = 0; i < n; i++) {
          Operation o = ops.get(i);
          if (node[i] && o.type() == Type.PUT && o.key().equals(keyNames.get(r[2])) && hb[i][r[0]]) {
            return false;
          }
        }
      }
    }
    for (List<Integer> writes : domains.values()) {
      if (!existsOrder(ops, hb, writes, readList, keyNames, new ArrayList<>(), new boolean[writes.size()])) {
        return false;
      }
    }
    return true;
  }

  private static boolean existsOrder(List<Operation> ops, boolean[][] hb, List<Integer> writes, List<int[]> reads,
      List<String> keys, List<Integer> order, boolean[] used) {
    if (order.size() == writes.size()) {
      Map<Integer, Integer> pos = new HashMap<>();
      for (int i = 0; i < order.size(); i++) {
        pos.put(order.get(i), i);
      }
      for (int[] r : reads) {
        if (r[1] < 0 || !pos.containsKey(r[1])) {
          continue;
        }
        for (int w : writes) {
          if (w != r[1] && ops.get(w).key().equals(keys.get(r[2])) && hb[w][r[0]] && pos.get(w) > pos.get(r[1])) {
            return false; // the reader saw w, which arbitration puts after what it returned
          }
        }
      }
      return true;
    }
    for (int i = 0; i < writes.size(); i++) {
      if (used[i]) {
        continue;
      }
      boolean ready = true;
      for (int j = 0; j < writes.size(); j++) {
        ready &= used[j] || j == i || !hb[writes.get(j)][writes.get(i)];
      }
      if (!ready) {
        continue;
      }
      used[i] = true;
      order.add(writes.get(i));
      if (existsOrder(ops, hb, writes, reads, keys, order, used)) {
        return true;
      }
      order.remove(order.size() - 1);
      used[i] = false;
    }
    return false;
  }

  /** Linearizability by enumerating orders per key (INFO writes: may be left out, i.e. put last). */
  static boolean bruteLinearizable(History h) {
    Map<String, List<Operation>> perKey = new HashMap<>();
    Map<String, Operation> writer = new HashMap<>();
    for (Operation o : h.operations()) {
      if (o.type() == Type.PUT && o.outcome() != Outcome.FAIL) {
        perKey.computeIfAbsent(o.key(), k -> new ArrayList<>()).add(o);
        writer.put(o.key() + "=" + o.value().toStringUtf8(), o);
      }
    }
    for (Operation o : h.operations()) {
      if (o.ok() && o.type() != Type.PUT) {
        for (var e : o.reads().entrySet()) {
          if (e.getValue().isPresent() && !writer.containsKey(e.getKey() + "=" + e.getValue().get().toStringUtf8())) {
            return false;
          }
          perKey.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(o);
        }
      }
    }
    for (var e : perKey.entrySet()) {
      if (!linearize(e.getKey(), e.getValue(), new boolean[e.getValue().size()], 0, null)) {
        return false;
      }
    }
    return true;
  }

  private static long end(Operation o) {
    return o.outcome() == Outcome.INFO ? Long.MAX_VALUE : o.completeMicros();
  }

  private static boolean linearize(String key, List<Operation> ops, boolean[] used, int done, String value) {
    if (done == ops.size()) {
      return true;
    }
    for (int i = 0; i < ops.size(); i++) {
      if (used[i]) {
        continue;
      }
      Operation o = ops.get(i);
      boolean ready = true;
      for (int j = 0; j < ops.size(); j++) {
        ready &= used[j] || j == i || end(ops.get(j)) >= o.invokeMicros();
      }
      if (!ready) {
        continue;
      }
      String next = value;
      if (o.type() == Type.PUT) {
        next = o.value().toStringUtf8();
      } else {
        String read = o.reads().get(key).map(b -> b.toStringUtf8()).orElse(null);
        if (!java.util.Objects.equals(read, value)) {
          continue;
        }
      }
      used[i] = true;
      if (linearize(key, ops, used, done + 1, next)) {
        return true;
      }
      used[i] = false;
    }
    return false;
  }

  private static String dump(History h) {
    StringBuilder sb = new StringBuilder();
    h.operations().forEach(o -> sb.append("  ").append(o.describe()).append('\n'));
    return sb.toString();
  }
}
