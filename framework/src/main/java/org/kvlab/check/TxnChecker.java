package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnResult;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * Checks the multi-key transactions (TXN operations) of a history against the ordering guarantees of a
 * deterministic (Calvin-style) store, from what each transaction returned: its timestamp {@code ts}, its id
 * {@code tid} and, per partition that executed part of it, the timestamp used there and its position {@code seq} in
 * that partition's sequence of executed transactions. Five properties, each its own violation kind:
 * <ol>
 *   <li>{@link #TIMESTAMP}: every partition a transaction touches executed it at the same timestamp;
 *   <li>{@link #ORDER}: every partition executed its transactions in ascending (ts, tid) order;
 *   <li>{@link #CYCLE}: the union of the partitions' execution sequences is acyclic (one global order);
 *   <li>{@link #LOST}: nothing lost or duplicated: every key of a transaction executed at exactly one partition, no
 *       two transactions at one position of one partition, no transaction id twice, and a partition's positions have
 *       no more gaps than there are transactions with an unknown outcome;
 *   <li>{@link #REPLAY}: replaying the OK transactions one at a time in (ts, tid) order against an empty store gives
 *       every read they returned, the writes they applied (procedures recomputed), and the values of final GETs
 *       (invoked after the last transaction completed). A transaction with an unknown outcome (INFO) may have run at
 *       an unknown point, and so may a plain PUT (it carries no timestamp): a read that only such a write could
 *       explain is accepted and the replay continues from it.
 * </ol>
 * Transactions that ran on a single partition take part in every check like the others.
 */
public final class TxnChecker implements Checker {
  public static final String NAME = "txn";
  public static final String TIMESTAMP = "txn: timestamp disagreement";
  public static final String ORDER = "txn: partition delivery out of (ts, tid) order";
  public static final String CYCLE = "txn: cyclic global order";
  public static final String LOST = "txn: lost or duplicated";
  public static final String REPLAY = "txn: not equivalent to a sequential replay";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    List<Operation> ok = new ArrayList<>();
    int unknown = 0;
    int withoutMetadata = 0;
    long lastTxnComplete = Long.MIN_VALUE;
    for (Operation op : history.operations()) {
      if (op.type() != Type.TXN) {
        continue;
      }
      lastTxnComplete = Math.max(lastTxnComplete, op.completeMicros());
      if (op.ok() && op.txn() != null && op.txn().result() != null && op.txn().result().parts().isEmpty()) {
        withoutMetadata++; // the protocol reports no ordering metadata: nothing for this checker to audit
      } else if (op.ok() && op.txn() != null && op.txn().result() != null) {
        ok.add(op);
      } else if (op.outcome() == Outcome.INFO) {
        unknown++;
      }
    }
    if (ok.isEmpty() && withoutMetadata > 0) {
      return Result.ok(NAME).vacuous(withoutMetadata + " transactions completed OK but none carries ordering metadata"
          + " (txn.parts is empty): nothing for this protocol-level check to audit. Fix: judge them by what clients saw"
          + " with --check serializable (docs/checkers.md#transactions-serializable-and-strict-serializable)");
    }
    if (ok.isEmpty()) {
      return Result.ok(NAME).vacuous("no transaction completed OK: nothing to check. Fix: record transactions against"
          + " a protocol that offers them (./kvlab shell's txn command; in a simulation, a workload with"
          + " Workload.withTxn, as CamuCheckedSimTest)");
    }
    List<Violation> out = new ArrayList<>();
    timestamps(ok, out);
    Map<Integer, List<Operation>> byPartition = sequences(ok, unknown, out);
    order(byPartition, out);
    cycle(ok, byPartition, out);
    int finalReads = replay(history, ok, lastTxnComplete, out);
    return Result.of(NAME, out).withNote("checked " + ok.size() + " OK transactions (" + unknown
        + " with an unknown outcome) on " + byPartition.size() + " partitions, and " + finalReads + " final reads"
        + (withoutMetadata > 0 ? "; " + withoutMetadata + " OK transactions without metadata left out" : ""));
  }

  private static void timestamps(List<Operation> ok, List<Violation> out) {
    for (Operation op : ok) {
      TxnResult r = op.txn().result();
      Map<Integer, Long> differ = new TreeMap<>();
      r.parts().forEach((p, part) -> {
        if (part.ts() != r.ts()) {
          differ.put(p, part.ts());
        }
      });
      if (!differ.isEmpty()) {
        Map<Integer, Long> all = new TreeMap<>();
        r.parts().forEach((p, part) -> all.put(p, part.ts()));
        out.add(new Violation(TIMESTAMP, op.describe() + " was ordered at ts " + r.ts() + " but its partitions"
            + " executed it at " + all + ": every participant must agree on one timestamp", List.of(op.id())));
      }
    }
  }

  /** Per partition, the OK transactions in execution (seq) order; reports duplicates, lost keys and gaps. */
  private static Map<Integer, List<Operation>> sequences(List<Operation> ok, int unknown, List<Violation> out) {
    Map<Integer, List<Operation>> by = new TreeMap<>();
    Map<Long, Operation> byTid = new HashMap<>();
    for (Operation op : ok) {
      TxnResult r = op.txn().result();
      Operation other = byTid.putIfAbsent(r.tid(), op);
      if (other != null) {
        out.add(new Violation(LOST, "transaction id " + r.tid() + " was returned to two transactions, "
            + other.describe() + " and " + op.describe() + ": one execution was delivered twice or ids collide",
            List.of(other.id(), op.id())));
      }
      Map<String, Integer> where = new HashMap<>();
      for (Map.Entry<Integer, TxnResult.Part> e : r.parts().entrySet()) {
        by.computeIfAbsent(e.getKey(), x -> new ArrayList<>()).add(op);
        for (String k : e.getValue().keys()) {
          Integer before = where.put(k, e.getKey());
          if (before != null) {
            out.add(new Violation(LOST, op.describe() + " executed key " + k + " at partitions " + before + " and "
                + e.getKey() + ": a key lives on one partition, so it ran twice", List.of(op.id())));
          }
        }
      }
      Set<String> missing = new java.util.TreeSet<>(op.txn().request().keys());
      missing.removeAll(where.keySet());
      if (!missing.isEmpty()) {
        out.add(new Violation(LOST, op.describe() + " completed OK but no partition reports executing key(s) "
            + missing + ": part of the transaction was lost", List.of(op.id())));
      }
    }
    for (Map.Entry<Integer, List<Operation>> e : by.entrySet()) {
      int p = e.getKey();
      List<Operation> seq = e.getValue();
      seq.sort(Comparator.comparingLong(op -> op.txn().result().parts().get(p).seq()));
      long max = 0;
      for (int i = 0; i < seq.size(); i++) {
        long s = seq.get(i).txn().result().parts().get(p).seq();
        max = Math.max(max, s);
        if (i > 0 && s == seq.get(i - 1).txn().result().parts().get(p).seq()) {
          out.add(new Violation(LOST, "partition " + p + " gave position " + s + " to two transactions, "
              + seq.get(i - 1).describe() + " and " + seq.get(i).describe(), List.of(seq.get(i - 1).id(),
              seq.get(i).id())));
        }
      }
      long gaps = max - seq.size();
      if (gaps > unknown) {
        out.add(new Violation(LOST, "partition " + p + " executed " + max + " transactions (positions up to " + max
            + ") but only " + seq.size() + " are OK in the history and " + unknown + " have an unknown outcome: "
            + (gaps - unknown) + " executions belong to no transaction (a duplicate execution or a phantom)",
            List.of(seq.get(seq.size() - 1).id())));
      }
    }
    return by;
  }

  private static int compare(Operation a, Operation b) {
    TxnResult x = a.txn().result();
    TxnResult y = b.txn().result();
    int c = Long.compare(x.ts(), y.ts());
    return c != 0 ? c : Long.compare(x.tid(), y.tid());
  }

  private static void order(Map<Integer, List<Operation>> by, List<Violation> out) {
    by.forEach((p, seq) -> {
      for (int i = 1; i < seq.size(); i++) {
        Operation a = seq.get(i - 1);
        Operation b = seq.get(i);
        TxnResult.Part pa = a.txn().result().parts().get(p);
        TxnResult.Part pb = b.txn().result().parts().get(p);
        boolean before = Long.compare(pa.ts(), pb.ts()) < 0
            || (pa.ts() == pb.ts() && a.txn().result().tid() < b.txn().result().tid());
        if (!before) {
          out.add(new Violation(ORDER, "partition " + p + " executed " + a.describe() + " (position " + pa.seq()
              + ", ts " + pa.ts() + ") before " + b.describe() + " (position " + pb.seq() + ", ts " + pb.ts()
              + "): a partition must execute in ascending (ts, tid) order, so it ran a transaction before it knew"
              + " of an earlier one", List.of(a.id(), b.id())));
        }
      }
    });
  }

  private static void cycle(List<Operation> ok, Map<Integer, List<Operation>> by, List<Violation> out) {
    Map<Long, Set<Long>> next = new HashMap<>();
    Map<Long, Integer> indegree = new HashMap<>();
    for (Operation op : ok) {
      next.put(op.id(), new HashSet<>());
      indegree.put(op.id(), 0);
    }
    by.forEach((p, seq) -> {
      for (int i = 1; i < seq.size(); i++) {
        if (next.get(seq.get(i - 1).id()).add(seq.get(i).id())) {
          indegree.merge(seq.get(i).id(), 1, Integer::sum);
        }
      }
    });
    Deque<Long> ready = new ArrayDeque<>();
    indegree.forEach((id, d) -> {
      if (d == 0) {
        ready.add(id);
      }
    });
    int sorted = 0;
    while (!ready.isEmpty()) {
      long u = ready.poll();
      sorted++;
      for (long v : next.get(u)) {
        if (indegree.merge(v, -1, Integer::sum) == 0) {
          ready.add(v);
        }
      }
    }
    if (sorted < ok.size()) {
      List<Long> left = new ArrayList<>();
      indegree.forEach((id, d) -> {
        if (d > 0) {
          left.add(id);
        }
      });
      left.sort(Long::compare);
      List<Long> shown = left.subList(0, Math.min(8, left.size()));
      out.add(new Violation(CYCLE, left.size() + " transactions are on a cycle of the partitions' execution orders"
          + " (some pair ran in one order at one partition and the other order at another), e.g. operations " + shown,
          List.copyOf(shown)));
    }
  }

  /** Replays in (ts, tid) order; returns the number of final reads compared. */
  private static int replay(History history, List<Operation> ok, long lastTxnComplete, List<Violation> out) {
    Map<String, Set<ByteString>> unknownWrites = new HashMap<>();
    Set<String> unknownProcedureKeys = new HashSet<>();
    for (Operation op : history.operations()) {
      if (op.type() == Type.PUT && op.outcome() != Outcome.FAIL && op.value() != null) {
        // a plain PUT carries no (ts, tid): its place in the order is unknown, like an INFO transaction's
        unknownWrites.computeIfAbsent(op.key(), x -> new HashSet<>()).add(op.value());
      }
      if (op.type() == Type.TXN && op.outcome() == Outcome.INFO && op.txn() != null) {
        op.txn().request().writes().forEach((k, v) -> unknownWrites.computeIfAbsent(k, x -> new HashSet<>()).add(v));
        if (op.txn().request().procedure() != null) {
          unknownProcedureKeys.addAll(op.txn().request().reads());
        }
      }
    }
    List<Operation> order = new ArrayList<>(ok);
    order.sort(TxnChecker::compare);
    Map<String, ByteString> state = new HashMap<>();
    int reported = 0;
    for (Operation op : order) {
      TxnResult r = op.txn().result();
      for (String k : op.txn().request().reads()) {
        Optional<ByteString> got = r.reads().get(k);
        ByteString expected = state.get(k);
        if (Objects.equals(got == null ? null : got.orElse(null), expected)) {
          continue;
        }
        boolean explained = got != null && got.isPresent() && (unknownWrites.getOrDefault(k, Set.of())
            .contains(got.get()) || unknownProcedureKeys.contains(k));
        if (explained) {
          state.put(k, got.get());
        } else if (reported++ < 20) {
          out.add(new Violation(REPLAY, op.describe() + " read " + k + "=" + show(got == null ? null
              : got.orElse(null)) + " but replaying the transactions in (ts, tid) order gives " + show(expected)
              + ": the execution is not equivalent to that sequential order", List.of(op.id())));
        }
      }
      Map<String, ByteString> expectedWrites = op.txn().request().procedure() == null ? op.txn().request().writes()
          : TxnProcedures.run(op.txn().request().procedure(), op.txn().request().args(), r.reads());
      if (!new TreeMap<>(r.writes()).equals(new TreeMap<>(expectedWrites)) && reported++ < 20) {
        out.add(new Violation(REPLAY, op.describe() + " applied " + r.writes() + " but its request and reads give "
            + expectedWrites, List.of(op.id())));
      }
      state.putAll(r.writes());
    }
    int finals = 0;
    for (Operation op : history.operations()) {
      if (op.type() != Type.GET || !op.ok() || op.invokeMicros() < lastTxnComplete) {
        continue;
      }
      finals++;
      Optional<ByteString> got = op.readValue();
      ByteString expected = state.get(op.key());
      if (Objects.equals(got.orElse(null), expected)) {
        continue;
      }
      boolean explained = got.isPresent() && (unknownWrites.getOrDefault(op.key(), Set.of()).contains(got.get())
          || unknownProcedureKeys.contains(op.key()));
      if (!explained && reported++ < 20) {
        out.add(new Violation(REPLAY, "final read " + op.describe() + " differs from the state after replaying every"
            + " transaction in (ts, tid) order, " + op.key() + "=" + show(expected), List.of(op.id())));
      }
    }
    return finals;
  }

  private static String show(ByteString v) {
    return v == null ? "nil" : v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : v.size() + "B";
  }
}
