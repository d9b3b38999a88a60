package org.kvlab.workload;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * A correct reference run for the workload tests: transactions of a family executed one at a time on a map (each
 * procedure given every declared key), recorded as a history, then one reader that reads every key touched (the
 * simulator's final reads), optionally seeing the store through {@code plant} (a planted fault).
 */
final class SerialRun {
  final Map<String, ByteString> store = new TreeMap<>();
  private final List<Operation> ops = new ArrayList<>();
  private long time;

  /** Runs {@code n} transactions of {@code family} drawn with seed {@code seed}, over {@code sessions} sessions. */
  SerialRun run(TxnFamily family, int n, int sessions, long seed, long microsPerTxn) {
    TxnFamily.Generator g = family.generator();
    Random r = new Random(seed);
    for (int i = 0; i < n; i++) {
      apply(g.next(r, i % sessions, time, 1000 + i), i % sessions);
    }
    return this;
  }

  private void apply(TxnRequest q, int session) {
    time += 1000;
    Map<String, Optional<ByteString>> read = new TreeMap<>();
    for (String k : q.keys()) {
      read.put(k, Optional.ofNullable(store.get(k)));
    }
    Map<String, ByteString> writes = TxnProcedures.run(q.procedure(), q.args(), read);
    store.putAll(writes);
    TxnResult result = new TxnResult(read, writes, time, ops.size(), Map.of());
    ops.add(new Operation(ops.size(), session, 0, Operation.Type.TXN, null, null, read, time, time + 10,
        Operation.Outcome.OK, null, new Operation.Txn(q, result)));
  }

  /** The history with one final reader (session 99) that reads every key through {@code plant}. */
  History history(UnaryOperator<Map<String, ByteString>> plant) {
    List<Operation> out = new ArrayList<>(ops);
    Map<String, ByteString> seen = plant.apply(new TreeMap<>(store));
    long t = time + 1_000_000;
    for (var e : new TreeMap<>(store).entrySet()) {
      Optional<ByteString> v = Optional.ofNullable(seen.get(e.getKey()));
      out.add(new Operation(out.size(), 99, 0, Operation.Type.GET, e.getKey(), null, Map.of(e.getKey(), v), t, t + 5,
          Operation.Outcome.OK, null));
      t += 10;
    }
    return new History(out);
  }

  History history() {
    return history(m -> m);
  }
}
