package org.kvlab.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.history.History;

/**
 * Causal+ consistency with last-writer-wins arbitration (seed 003 Defs 8–14, §9 item 3), checked by looking for the
 * "bad patterns" of Bouajjani, Enea, Guerraoui and Hamza, "On verifying causal consistency" (POPL 2017), which
 * characterise CCv (causal convergence) for differentiated histories (every value written once):
 *
 * <ul>
 *   <li>{@link #THIN_AIR} — a read returns a value nobody wrote (and {@link #FAILED_WRITE}: only a FAILed PUT wrote);
 *   <li>{@link #CYCLIC_CO} — happens-before has a cycle (e.g. a read returns a value its own session writes later);
 *   <li>{@link #WRITE_CO_INIT_READ} — a read of k returns the initial state although a PUT of k happens before it;
 *   <li>{@link #WRITE_CO_READ} — a read of k returns v′ although a PUT of k that v′'s PUT happens before is in the
 *       read's causal past (the read missed a causally newer write: the photo/album anomaly);
 *   <li>{@link #CYCLIC_CF} — no last-writer-wins order explains the reads. Per key, the arbitration graph has an edge
 *       w1 → w2 when w1 happens before w2, and w → w′ when a read returning w′'s value has w (≠ w′) in its causal
 *       past ("the reader saw w and still chose w′, so w′ must win over w"); a cycle is a violation.
 * </ul>
 *
 * <p>ROTX reads are reads too, and a ROTX's causal past includes the PUTs it read from, so a ROTX that is not a causal
 * snapshot is reported here as well ({@link RotxChecker} reports it with ROTX-specific explanations).
 *
 * <p>Cost: happens-before via {@link CausalOrder} ({@code O((n+E)·W/64)} time, {@code W²/8} bytes); per read one
 * bitset intersection and one {@code andNot} per maximal PUT of the key in its past; the arbitration graph of a key is
 * only built when some "saw w, chose w′" edge points backwards in the topological order (otherwise it is acyclic).
 * Polynomial throughout; 20,000 operations take well under a second.
 */
public final class CausalChecker implements Checker {
  public static final String NAME = "causal";
  public static final String THIN_AIR = HistoryModel.THIN_AIR_KIND;
  public static final String FAILED_WRITE = HistoryModel.FAILED_WRITE_KIND;
  public static final String CYCLIC_CO = "causal: cyclic causal order (CyclicCO)";
  public static final String WRITE_CO_INIT_READ = "causal: missed write, read initial value (WriteCOInitRead)";
  public static final String WRITE_CO_READ = "causal: overwritten dependency (WriteCORead)";
  public static final String CYCLIC_CF = "causal+: no last-writer-wins order (CyclicCF)";

  /** Explanations of the first this-many violations include the causal chain (a BFS each). */
  private static final int CHAINS = 200;

  private final boolean globalArbitration;

  /** Per-key arbitration (Def 12: the conflict-resolution function is per key). */
  public CausalChecker() {
    this(false);
  }

  private CausalChecker(boolean globalArbitration) {
    this.globalArbitration = globalArbitration;
  }

  /**
   * A stricter variant: one arbitration order over all PUTs of all keys (what a timestamp-based last-writer-wins
   * store such as GentleRain or CausalSpartanX provides; Bouajjani's CCv exactly). Cycles may then span keys.
   */
  public static CausalChecker withGlobalArbitration() {
    return new CausalChecker(true);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    HistoryModel m = HistoryModel.of(history);
    List<Violation> out = new ArrayList<>(m.problems());
    Run run = new Run(m, out);
    CausalOrder co = CausalOrder.compute(m, null, run::visit);
    if (!co.acyclic()) {
      for (int[] cycle : co.cycles()) {
        out.add(cyclic(m, co, cycle, CYCLIC_CO, "other causal checks were skipped"));
      }
      return Result.of(NAME, out);
    }
    run.arbitration(co);
    return Result.of(NAME, out);
  }

  /** A violation for a cycle of the causal order. */
  static Violation cyclic(HistoryModel m, CausalOrder co, int[] cycle, String kind, String note) {
    int[] closed = Arrays.copyOf(cycle, cycle.length + 1);
    closed[cycle.length] = cycle[0];
    return new Violation(kind,
        "happens-before has a cycle, so " + m.describe(cycle[0]) + " happens before itself"
            + (co.key() == null ? "" : " (in the order of key " + co.key() + ")")
            + " — typically a read returned a value written after it in its own causal order: "
            + co.showChain(closed) + (note == null ? "" : "; " + note),
        new Ids(m).add(cycle).list());
  }

  /** State of one check. */
  private final class Run {
    private final HistoryModel m;
    private final List<Violation> out;
    private int chains;
    /** key (or "" when global) → (from rank, to rank) → witness read; edges "reader saw from, chose to". */
    private final Map<String, Map<Long, Integer>> chose = new TreeMap<>();
    private final Map<String, Boolean> backward = new HashMap<>();

    Run(HistoryModel m, List<Violation> out) {
      this.m = m;
      this.out = out;
    }

    private boolean chain() {
      return chains++ < CHAINS;
    }

    void visit(CausalOrder co, int op, CausalOrder.Past sessionPast, CausalOrder.Past past) {
      HistoryModel.Read[] rs = m.reads[op];
      if (rs == null) {
        return;
      }
      for (HistoryModel.Read r : rs) {
        if (!r.resolved()) {
          continue;
        }
        int[] max = co.maximalWritesOf(r.keyIdx(), past);
        if (r.source() == HistoryModel.INITIAL) {
          if (max.length > 0) {
            int w = co.opOfRank(max[0]);
            int[] chain = chain() ? co.chain(w, op) : null;
            out.add(new Violation(WRITE_CO_INIT_READ,
                m.describe(op) + " returned " + r.key() + "=nil (the initial state) although "
                    + m.describe(w) + " wrote " + r.key() + " and happens before the read"
                    + (chain == null ? "" : ": " + co.showChain(chain)),
                new Ids(m).add(op, w).add(chain).list()));
          }
          continue;
        }
        int w = co.rank(r.source());
        int overwriter = -1;
        for (int x : max) {
          if (x == w) {
            continue;
          }
          if (co.pastOfRank(x).contains(w)) {
            if (overwriter < 0) {
              overwriter = x;
            }
          } else {
            String k = globalArbitration ? "" : r.key();
            chose.computeIfAbsent(k, z -> new LinkedHashMap<>()).putIfAbsent(((long) x << 32) | w, op);
            if (x > w) {
              backward.put(k, true);
            }
          }
        }
        if (overwriter >= 0) {
          int o = co.opOfRank(overwriter);
          int[] chain = chain() ? co.chain(r.source(), o, op) : null;
          out.add(new Violation(WRITE_CO_READ,
              m.describe(op) + " returned " + HistoryModel.show(r) + " written by " + m.describe(r.source())
                  + ", but that value was overwritten by " + m.describe(o) + ", which happens after it and before"
                  + " the read, so the read missed a causally newer write"
                  + (chain == null ? "" : ": " + co.showChain(chain)),
              new Ids(m).add(op, r.source(), o).add(chain).list()));
        }
      }
    }

    /** CyclicCF: for each key with a backward "saw, chose" edge, look for a cycle in its arbitration graph. */
    void arbitration(CausalOrder co) {
      for (Map.Entry<String, Map<Long, Integer>> e : chose.entrySet()) {
        String k = e.getKey();
        if (!backward.getOrDefault(k, false)) {
          continue; // every edge agrees with the topological order: acyclic
        }
        int[] ranks;
        if (globalArbitration) {
          ranks = new int[co.writes()];
          Arrays.setAll(ranks, r -> r);
        } else {
          ranks = co.writeRanksOf(k);
        }
        Graphs.EdgeList edges = new Graphs.EdgeList();
        for (int i = 0; i < ranks.length; i++) {
          for (int x : co.maximalBelow(ranks[i], globalArbitration ? null : k)) {
            edges.add(Arrays.binarySearch(ranks, x), i); // happens-before (transitive reduction)
          }
        }
        Map<Long, Integer> witness = new HashMap<>();
        for (Map.Entry<Long, Integer> c : e.getValue().entrySet()) {
          int from = Arrays.binarySearch(ranks, (int) (c.getKey() >>> 32));
          int to = Arrays.binarySearch(ranks, (int) (long) c.getKey());
          edges.add(from, to);
          witness.put(((long) from << 32) | to, c.getValue());
        }
        int[][] succ = edges.successors(ranks.length);
        for (int[] comp : Graphs.cyclicComponents(succ)) {
          int[] cycle = Graphs.cycleThrough(succ, comp, comp[0]);
          Ids ids = new Ids(m);
          StringBuilder why = new StringBuilder();
          for (int i = 0; i < cycle.length; i++) {
            int a = cycle[i];
            int b = cycle[(i + 1) % cycle.length];
            int wa = co.opOfRank(ranks[a]);
            int wb = co.opOfRank(ranks[b]);
            ids.add(wa);
            Integer r = witness.get(((long) a << 32) | b);
            why.append(i == 0 ? "" : "; ").append(m.describe(wb)).append(" must win over ").append(m.describe(wa));
            if (r != null) {
              ids.add(r);
              why.append(" because ").append(m.describe(r)).append(" returned the former although the latter"
                  + " was in its causal past");
            } else {
              why.append(" because it happens after it");
            }
          }
          for (int i = 0; i < cycle.length; i++) {
            Integer r = witness.get(((long) cycle[i] << 32) | cycle[(i + 1) % cycle.length]);
            if (r != null) {
              ids.add(r);
            }
          }
          out.add(new Violation(CYCLIC_CF,
              "no single last-writer-wins order " + (globalArbitration ? "of all writes" : "of key " + k)
                  + " explains what was read: " + why + " — a cycle",
              ids.list()));
        }
      }
    }
  }
}
