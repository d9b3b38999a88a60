package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Type;

/**
 * Convergence (seed 003 Def 16, Theorems 10/11; §9 item 6): once writes have stopped and replication has had time to
 * finish, every datacenter returns the same value for every key, through GET and ROTX alike.
 *
 * <p>The final reads:
 *
 * <ul>
 *   <li>{@link #ConvergenceChecker(long)}: every completed GET and ROTX invoked at or after the given quiescence time
 *       (the caller asserts the system had settled by then; a datacenter whose reads still change is reported);
 *   <li>{@link #ConvergenceChecker()}: the quiescence time is the first microsecond after the last PUT completed, and
 *       only the <em>last</em> read of each key in each datacenter after it counts. A workload's trailing reads may
 *       legitimately race the replication of the last writes; the reads issued after the workload settled (the
 *       simulator's final readers) come last.
 * </ul>
 *
 * For each key read after quiescence:
 *
 * <ul>
 *   <li>{@link #DIVERGENT}: two datacenters returned different values;
 *   <li>{@link #UNSTABLE}: one datacenter returned different values (it was still changing after "quiescence");
 *   <li>{@link #NEVER_WRITTEN}: they agree on a value no PUT wrote, or only a FAILed PUT wrote;
 *   <li>{@link #LOST_WRITE}: they agree on the initial state although a PUT of the key took effect (it completed OK,
 *       or someone read it);
 *   <li>{@link #STALE} (only with {@link #requireCausalWinner()}): they agree on a value that another PUT of the key,
 *       which took effect, causally overwrote (happens after it) — that PUT was lost. Def 12 requires the conflict
 *       resolution function to pick the causally later version; last-writer-wins on skewed physical clocks (Eventual)
 *       breaks this, timestamp orders that capture causality (HLC, Lamport) do not.
 * </ul>
 */
public final class ConvergenceChecker implements Checker {
  public static final String NAME = "convergence";
  public static final String DIVERGENT = "convergence: datacenters disagree";
  public static final String UNSTABLE = "convergence: value still changing after quiescence";
  public static final String NEVER_WRITTEN = "convergence: converged to a value never written";
  public static final String LOST_WRITE = "convergence: write lost";
  public static final String STALE = "convergence: converged to an overwritten value";

  private final Long quiescentFromMicros;
  private final boolean causalWinner;

  /** Final reads: the last read of each key in each datacenter among those invoked after the last PUT completed. */
  public ConvergenceChecker() {
    this(null, false);
  }

  /** Final reads are those invoked at or after {@code quiescentFromMicros}. */
  public ConvergenceChecker(long quiescentFromMicros) {
    this(Long.valueOf(quiescentFromMicros), false);
  }

  private ConvergenceChecker(Long quiescentFromMicros, boolean causalWinner) {
    this.quiescentFromMicros = quiescentFromMicros;
    this.causalWinner = causalWinner;
  }

  /** The same checker that also reports {@link #STALE}: the agreed value must not be causally overwritten. */
  public ConvergenceChecker requireCausalWinner() {
    return new ConvergenceChecker(quiescentFromMicros, true);
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The quiescence time used for this history: the explicit one, or the first microsecond after the last write could
   * have taken effect without being seen to — the latest completion of an OK PUT, or invocation of an INFO PUT (it
   * may take effect any time after; when it gave up says nothing about the store). FAILed PUTs had no effect and are
   * ignored, so a PUT that fails or times out late cannot push quiescence past the final reads and hide divergence.
   */
  public long quiescentFrom(History history) {
    if (quiescentFromMicros != null) {
      return quiescentFromMicros;
    }
    long last = Long.MIN_VALUE;
    for (Operation op : history.operations()) {
      if (op.type() == Type.PUT) {
        switch (op.outcome()) {
          case OK -> last = Math.max(last, op.completeMicros());
          case INFO -> last = Math.max(last, op.invokeMicros());
          case FAIL -> { }
        }
      }
    }
    return last == Long.MIN_VALUE ? Long.MIN_VALUE : last + 1;
  }

  private record FinalRead(int op, HistoryModel.Read read) {}

  @Override
  public Result check(History history) {
    HistoryModel m = HistoryModel.of(history);
    long q = quiescentFrom(history);
    Map<String, List<FinalRead>> byKey = new TreeMap<>();
    Map<String, Map<Integer, FinalRead>> lastPerDc = new TreeMap<>();
    for (int i = 0; i < m.n; i++) {
      Operation op = m.op(i);
      if (m.reads[i] == null || op.invokeMicros() < q) {
        continue;
      }
      for (HistoryModel.Read r : m.reads[i]) {
        if (quiescentFromMicros != null) {
          byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(new FinalRead(i, r));
        } else {
          lastPerDc.computeIfAbsent(r.key(), k -> new TreeMap<>()).merge(op.dc(), new FinalRead(i, r),
              (a, b) -> m.op(b.op()).invokeMicros() >= m.op(a.op()).invokeMicros() ? b : a);
        }
      }
    }
    lastPerDc.forEach((k, perDc) -> byKey.put(k, new ArrayList<>(perDc.values())));
    List<Violation> out = new ArrayList<>();
    CausalOrder co = null;
    String since = quiescentFromMicros != null ? " after quiescence (reads invoked at or after " + q + "µs)"
        : " (the last read in each datacenter after the last PUT completed, at " + q + "µs)";
    for (Map.Entry<String, List<FinalRead>> e : byKey.entrySet()) {
      String key = e.getKey();
      // value -> dc -> last final read of that value in that dc
      Map<Optional<ByteString>, Map<Integer, Integer>> seen = new LinkedHashMap<>();
      TreeSet<Integer> dcs = new TreeSet<>();
      for (FinalRead f : e.getValue()) {
        int dc = m.op(f.op()).dc();
        dcs.add(dc);
        seen.computeIfAbsent(f.read().value(), v -> new TreeMap<>()).put(dc, f.op());
      }
      if (seen.size() > 1) {
        boolean acrossDcs = dcs.size() > 1;
        Ids ids = new Ids(m);
        List<String> parts = new ArrayList<>();
        for (Map.Entry<Optional<ByteString>, Map<Integer, Integer>> v : seen.entrySet()) {
          for (Map.Entry<Integer, Integer> d : v.getValue().entrySet()) {
            ids.add(d.getValue());
            parts.add("dc" + d.getKey() + " returned " + HistoryModel.show(v.getKey()) + " (" + m.describe(d.getValue())
                + ")");
          }
        }
        out.add(new Violation(acrossDcs ? DIVERGENT : UNSTABLE,
            "key " + key + " has " + seen.size() + " different values" + since + ": " + String.join("; ", parts)
                + (acrossDcs ? "" : " — the datacenter had not settled, or the quiescence time is too early"),
            ids.list()));
        continue;
      }
      FinalRead any = e.getValue().get(e.getValue().size() - 1);
      HistoryModel.Read r = any.read();
      String agreed = "every final read of " + key + since + " (e.g. " + m.describe(any.op()) + ", in "
          + dcs.size() + " datacenter" + (dcs.size() == 1 ? "" : "s") + ")";
      if (r.source() == HistoryModel.THIN_AIR || r.source() == HistoryModel.FAILED) {
        out.add(new Violation(NEVER_WRITTEN,
            agreed + " returned " + HistoryModel.show(r.value()) + ", which "
                + (r.source() == HistoryModel.FAILED ? "only the FAILed " + m.describe(r.failedPut()) + " wrote"
                    : "no PUT of " + key + " wrote"),
            new Ids(m).add(any.op(), r.failedPut()).list()));
        continue;
      }
      int[] writes = m.writesByKey.getOrDefault(key, new int[0]);
      if (r.source() == HistoryModel.INITIAL) {
        int lost = -1;
        for (int w : writes) {
          if (m.happened(w) && (lost < 0 || m.op(w).completeMicros() > m.op(lost).completeMicros())) {
            lost = w;
          }
        }
        if (lost >= 0) {
          out.add(new Violation(LOST_WRITE,
              agreed + " returned nil (the initial state), although " + m.describe(lost) + " took effect",
              new Ids(m).add(any.op(), lost).list()));
        }
        continue;
      }
      if (!causalWinner) {
        continue;
      }
      if (co == null) {
        co = CausalOrder.compute(m, null, null);
      }
      if (!co.acyclic()) {
        continue; // "overwritten" is meaningless; CausalChecker reports the cycle
      }
      int newer = -1;
      for (int w : writes) {
        if (m.happened(w) && co.hb(r.source(), w) && (newer < 0 || co.hb(newer, w))) {
          newer = w;
        }
      }
      if (newer >= 0) {
        int[] chain = co.chain(r.source(), newer);
        out.add(new Violation(STALE,
            agreed + " returned " + HistoryModel.show(r.value()) + " written by " + m.describe(r.source())
                + ", but " + m.describe(newer) + " overwrote it causally and took effect, so it must win"
                + (chain == null ? "" : ": " + co.showChain(chain)),
            new Ids(m).add(any.op(), r.source(), newer).list()));
      }
    }
    int reads = 0;
    TreeSet<Integer> allDcs = new TreeSet<>();
    for (List<FinalRead> fs : byKey.values()) {
      reads += fs.size();
      fs.forEach(f -> allDcs.add(m.op(f.op()).dc()));
    }
    Result result = Result.of(NAME, out);
    if (reads == 0) {
      return result.vacuous("nothing to compare: no GET or ROTX completed" + (q == Long.MIN_VALUE ? ""
          : quiescentFromMicros != null ? " at or after " + q + "µs" : " after the last write (" + (q - 1) + "µs)")
          + ". Fix: record reads of the written keys in every datacenter after the writes have settled");
    }
    return result.withNote("compared " + reads + " final read" + (reads == 1 ? "" : "s") + " of " + byKey.size()
        + " key" + (byKey.size() == 1 ? "" : "s") + " in " + allDcs.size() + " datacenter"
        + (allDcs.size() == 1 ? "" : "s") + (allDcs.size() == 1 ? " (one datacenter alone cannot diverge)" : ""));
  }
}
