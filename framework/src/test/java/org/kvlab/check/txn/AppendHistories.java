package org.kvlab.check.txn;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * Random list-append histories of a single-copy store that runs each transaction atomically at one instant inside its
 * invocation..completion interval (so they are strictly serializable), for the checker's tests and its benchmark.
 * Keys retire after {@code writesPerKey} appends (a fresh key takes their place), as Elle's workload does, so lists
 * stay short however long the history. A store that {@code loses} appends (reports OK, applies nothing for one key)
 * makes the mutant histories.
 */
final class AppendHistories {
  private AppendHistories() {}

  /**
   * @param sessions concurrent sessions (transaction j runs in session j mod sessions)
   * @param activeKeys keys in use at once
   * @param maxLength micro-operations per transaction, 1..maxLength keys
   * @param readShare probability a key of a transaction is only read (else read and appended)
   * @param unknown probability a transaction ends INFO (it ran or not, at random)
   * @param failed probability a transaction ends FAIL (it did not run)
   * @param lose probability the store loses one of an OK transaction's appends
   */
  static History generate(long seed, int txns, int sessions, int activeKeys, int writesPerKey, int maxLength,
      double readShare, double unknown, double failed, double lose) {
    return generate(seed, txns, sessions, activeKeys, writesPerKey, maxLength, readShare, unknown, failed, lose, 0);
  }

  /**
   * As above, with a store whose reads are stale with probability {@code stale} per key: they return the list before
   * its latest append (appends still go to the latest list), which makes read skew and write skew cycles.
   */
  static History generate(long seed, int txns, int sessions, int activeKeys, int writesPerKey, int maxLength,
      double readShare, double unknown, double failed, double lose, double stale) {
    Random r = new Random(seed);
    int[] active = new int[activeKeys];
    int nextKey = 0;
    for (int i = 0; i < activeKeys; i++) {
      active[i] = nextKey++;
    }
    Map<Integer, String> lists = new HashMap<>();
    Map<Integer, String> previous = new HashMap<>();
    Map<Integer, Integer> appends = new HashMap<>();
    List<Operation> ops = new ArrayList<>(txns);
    int spread = 5 * sessions;
    for (int j = 0; j < txns; j++) {
      int length = 1 + r.nextInt(maxLength);
      List<Integer> slots = new ArrayList<>();
      while (slots.size() < Math.min(length, activeKeys)) {
        int s = r.nextInt(activeKeys);
        if (!slots.contains(s)) {
          slots.add(s);
        }
      }
      List<String> keys = new ArrayList<>();
      List<String> appended = new ArrayList<>();
      for (int s : slots) {
        String k = "k" + active[s];
        keys.add(k);
        if (r.nextDouble() >= readShare) {
          appended.add(k);
          if (appends.merge(active[s], 1, Integer::sum) >= writesPerKey) {
            active[s] = nextKey++; // retire the key: the next transactions use a fresh one
          }
        }
      }
      TxnRequest request;
      if (appended.isEmpty()) {
        request = TxnRequest.of(keys, Map.of());
      } else {
        List<String> args = new ArrayList<>();
        args.add(Long.toString(j));
        args.addAll(appended);
        request = new TxnRequest(keys, Map.of(), TxnProcedures.APPEND, args);
      }
      double u = r.nextDouble();
      Operation.Outcome outcome = u < unknown ? Operation.Outcome.INFO : u < unknown + failed
          ? Operation.Outcome.FAIL : Operation.Outcome.OK;
      boolean runs = outcome == Operation.Outcome.OK || (outcome == Operation.Outcome.INFO && r.nextBoolean());
      Map<String, Optional<ByteString>> reads = new TreeMap<>();
      Map<String, ByteString> writes = new TreeMap<>();
      if (runs) {
        for (String k : request.reads()) {
          int key = Integer.parseInt(k.substring(1));
          String v = stale > 0 && r.nextDouble() < stale ? previous.get(key) : lists.get(key);
          reads.put(k, v == null ? Optional.empty() : Optional.of(ByteString.copyFromUtf8(v)));
        }
        if (request.procedure() != null) {
          Map<String, Optional<ByteString>> latest = new TreeMap<>();
          for (String k : request.reads()) {
            String v = lists.get(Integer.parseInt(k.substring(1)));
            latest.put(k, v == null ? Optional.empty() : Optional.of(ByteString.copyFromUtf8(v)));
          }
          writes = TxnProcedures.run(request.procedure(), request.args(), latest);
        }
        String lost = outcome == Operation.Outcome.OK && !appended.isEmpty() && r.nextDouble() < lose
            ? appended.get(r.nextInt(appended.size())) : null;
        writes.forEach((k, v) -> {
          if (!k.equals(lost)) {
            String before = lists.put(Integer.parseInt(k.substring(1)), v.toStringUtf8());
            if (before != null) {
              previous.put(Integer.parseInt(k.substring(1)), before);
            }
          }
        });
      }
      long at = 10L * j + spread;
      long invoke = at - r.nextInt(spread);
      long complete = at + r.nextInt(spread);
      boolean ok = outcome == Operation.Outcome.OK;
      ops.add(new Operation(j, j % sessions, 0, Operation.Type.TXN, null, null, ok ? reads : null, invoke, complete,
          outcome, ok ? null : "lost", new Operation.Txn(request, ok ? new TxnResult(reads, writes, j, j, Map.of())
          : null)));
    }
    return new History(ops);
  }
}
