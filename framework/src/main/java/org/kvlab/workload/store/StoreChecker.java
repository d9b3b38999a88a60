package org.kvlab.workload.store;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.check.Checker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * The online store's invariants ({@link StoreProcedures}), judged from a history of the {@code store} workload:
 *
 * <ul>
 *   <li>{@link #NEGATIVE}: a stock read or written below 0 (or above {@link StoreProcedures#INITIAL_STOCK}, which
 *       only orders change, downwards), or one that is no whole number;
 *   <li>the final reads (GETs invoked after every transaction had ended: the simulator's readers, one per
 *       datacenter) of the globally written keys ({@code stock:*}, {@code order:*}) — {@link #DIVERGENT} if two
 *       datacenters' last reads of one differ (the replicated state did not converge), {@link #NOT_CONSERVED} if, at
 *       a datacenter, an item's stock plus the units its order records list is not
 *       {@link StoreProcedures#INITIAL_STOCK} (an order applied twice or partly, or lost).
 * </ul>
 *
 * Carts are written at their server only (local operations) and are not compared.
 */
public final class StoreChecker implements Checker {
  public static final String NAME = "store";
  public static final String NEGATIVE = "store: stock out of range";
  public static final String DIVERGENT = "store: replicated state differs";
  public static final String NOT_CONSERVED = "store: stock not conserved";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    List<Violation> out = new ArrayList<>();
    long lastTxnEnd = Long.MIN_VALUE;
    int orders = 0;
    for (Operation op : history.operations()) {
      if (op.type() != Operation.Type.TXN || op.txn() == null) {
        continue;
      }
      lastTxnEnd = Math.max(lastTxnEnd, op.completeMicros());
      orders += StoreProcedures.ORDER.equals(op.txn().request().procedure()) ? 1 : 0;
      if (!op.ok()) {
        continue;
      }
      if (op.reads() != null) {
        op.reads().forEach((k, v) -> range(op, k, v, "read", out));
      }
      if (op.txn().result() != null) {
        op.txn().result().writes().forEach((k, v) -> range(op, k, Optional.of(v), "wrote", out));
      }
    }
    if (orders == 0) {
      return Result.of(NAME, out).vacuous("no order in the history. Fix: run the store workload (--txn-workload"
          + " store)");
    }
    // dc -> key -> the last final read
    Map<Integer, TreeMap<String, Optional<ByteString>>> last = new TreeMap<>();
    for (Operation op : history.operations()) {
      if (op.type() == Operation.Type.GET && op.ok() && op.invokeMicros() > lastTxnEnd
          && (op.key().startsWith("stock:") || op.key().startsWith("order:"))) {
        last.computeIfAbsent(op.dc(), d -> new TreeMap<>()).put(op.key(), op.readValue());
      }
    }
    if (last.isEmpty()) {
      return Result.of(NAME, out).vacuous("no final reads of stock:* or order:* after the last transaction: only"
          + " the ranges were checked. Fix: run with final reads");
    }
    Map.Entry<Integer, TreeMap<String, Optional<ByteString>>> first = last.entrySet().iterator().next();
    last.forEach((dc, reads) -> {
      reads.forEach((k, v) -> {
        Optional<ByteString> w = first.getValue().get(k);
        if (w != null && !w.equals(v)) {
          out.add(new Violation(DIVERGENT, k + " is " + show(w) + " at datacenter " + first.getKey() + " but "
              + show(v) + " at datacenter " + dc + " after quiescence", List.of()));
        }
      });
      TreeMap<String, Long> sold = new TreeMap<>();
      reads.forEach((k, v) -> {
        if (k.startsWith("order:") && v.isPresent() && !v.get().toStringUtf8().equals(StoreProcedures.REFUSED)) {
          Cart.parse(v).forEach((i, q) -> sold.merge(i, q, Long::sum));
        }
      });
      reads.forEach((k, v) -> {
        if (k.startsWith("stock:")) {
          String i = k.substring("stock:".length());
          long left = StoreProcedures.stockOf(v);
          long units = sold.getOrDefault(i, 0L);
          if (left + units != StoreProcedures.INITIAL_STOCK) {
            out.add(new Violation(NOT_CONSERVED, "at datacenter " + dc + " item " + i + " has " + left + " left and"
                + " its order records took " + units + ", but it started with " + StoreProcedures.INITIAL_STOCK
                + ": an order was applied twice, partly or lost", List.of()));
          }
        }
      });
    });
    return Result.of(NAME, out).withNote("checked " + orders + " orders and the final reads of " + last.size()
        + " datacenters");
  }

  private static void range(Operation op, String k, Optional<ByteString> v, String how, List<Violation> out) {
    if (!k.startsWith("stock:") || v == null || v.isEmpty()) {
      return;
    }
    String text = v.get().toStringUtf8().trim();
    long n;
    try {
      n = Long.parseLong(text);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 0 || n > StoreProcedures.INITIAL_STOCK) {
      out.add(new Violation(NEGATIVE, op.describe() + " " + how + " " + k + "=\"" + text + "\", outside 0.."
          + StoreProcedures.INITIAL_STOCK, List.of(op.id())));
    }
  }

  private static String show(Optional<ByteString> v) {
    return v.map(b -> "\"" + b.toStringUtf8() + "\"").orElse("absent");
  }
}
