package org.kvlab.workload.tpcc;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.workload.FinalState;
import org.kvlab.workload.Fields;
import org.kvlab.workload.WorkloadInvariants;

/**
 * TPC-C-lite's consistency conditions at quiescence (after TPC-C's §3.3.2, over {@link TpccKeys}), per final
 * reader; absent records are at their defaults, so the sums run over the keys the readers read (the simulator's
 * final reads read every key the run touched):
 * <ol>
 *   <li>{@value #WAREHOUSE_YTD}: a warehouse's ytd is the sum of its districts' (condition 1);
 *   <li>{@value #ORDER_COUNT}: a district's next order id − 1 is the number of orders its customers placed
 *       (condition 2: d_next_o_id − 1 = max(o_id));
 *   <li>{@value #PENDING}: the pending orders are exactly delivered + 1 .. next − 1, in order (conditions 2–3 on
 *       NEW-ORDER), and their amounts plus the delivered amount are the amount ordered;
 *   <li>{@value #LINES}: the stock's order count over all warehouses is the number of order lines over all districts
 *       (condition 4: order lines conserved);
 *   <li>{@value #PAYMENTS}: the customers' payments add up to the districts' ytd (conditions 8–9 via HISTORY);
 *   <li>{@value #LAST_ORDER}: a customer's last order record carries the id its customer row names;
 *   <li>{@value #STOCK}: a stock quantity is at least 0 and equal to 50 − ytd modulo 91 (TPC-C's refill rule).
 * </ol>
 */
public final class TpccInvariants implements WorkloadInvariants {
  public static final String WAREHOUSE_YTD = "tpcc: warehouse ytd is not the sum of its districts'";
  public static final String ORDER_COUNT = "tpcc: next order id does not match the orders placed";
  public static final String PENDING = "tpcc: pending orders inconsistent";
  public static final String LINES = "tpcc: order lines not conserved";
  public static final String PAYMENTS = "tpcc: payments do not add up";
  public static final String LAST_ORDER = "tpcc: customer's last order disagrees";
  public static final String STOCK = "tpcc: stock quantity impossible";

  @Override
  public String family() {
    return Tpcc.NAME;
  }

  @Override
  public long transactions(History history) {
    long n = 0;
    for (Operation op : history.operations()) {
      TxnRequest q = op.type() == Operation.Type.TXN && op.txn() != null ? op.txn().request() : null;
      n += q != null && q.procedure() != null && q.procedure().startsWith(Tpcc.NAME + ".") ? 1 : 0;
    }
    return n;
  }

  @Override
  public List<Violation> check(History history, FinalState state, int max) {
    List<Violation> out = new ArrayList<>();
    Map<String, Integer> found = new HashMap<>();
    for (var reader : state.readers().entrySet()) {
      check(reader.getValue(), "final reader " + reader.getKey() + ": ", out, found, max);
    }
    return out;
  }

  /** The conditions on one view of the store ({@code who} prefixes each violation). */
  static void check(Map<String, Optional<ByteString>> s, String who, List<Violation> out, Map<String, Integer> found,
      int max) {
    Map<Integer, Long> districtYtd = new TreeMap<>();
    Map<Integer, Long> warehouseYtd = new TreeMap<>();
    Map<String, Long> ordersPlaced = new TreeMap<>();
    Map<String, Fields> districts = new TreeMap<>();
    long stockOrders = 0;
    long lines = 0;
    long paid = 0;
    long ytd = 0;
    for (var e : s.entrySet()) {
      int[] ids = TpccKeys.parse(e.getKey());
      if (ids == null) {
        continue;
      }
      Fields f = Fields.of(e.getValue());
      switch (e.getKey().charAt(0)) {
        case 'w' -> warehouseYtd.put(ids[0], f.number("ytd"));
        case 'd' -> {
          districts.put(e.getKey(), f);
          districtYtd.merge(ids[0], f.number("ytd"), Long::sum);
          lines += f.number("lines");
          ytd += f.number("ytd");
        }
        case 'c' -> {
          ordersPlaced.merge(TpccKeys.district(ids[0], ids[1]), f.number("orders"), Long::sum);
          paid += f.number("ytdPayment");
          if (f.number("orders") > 0) {
            Fields o = Fields.of(s.get(TpccKeys.order(ids[0], ids[1], ids[2])));
            if (o.number("id") != f.number("last")) {
              WorkloadInvariants.report(out, found, max, LAST_ORDER, who + e.getKey() + " = \"" + f
                  + "\" names order " + f.number("last") + " as its last, but its order record reads \"" + o
                  + "\": the New-Order that wrote one did not write the other");
            }
          }
        }
        case 's' -> {
          stockOrders += f.number("orders");
          long q = f.number("quantity", TpccKeys.INITIAL_QUANTITY);
          if (q < 0 || Math.floorMod(q + f.number("ytd") - TpccKeys.INITIAL_QUANTITY, 91) != 0) {
            WorkloadInvariants.report(out, found, max, STOCK, who + e.getKey() + " = \"" + f + "\": quantity " + q
                + " cannot follow from " + TpccKeys.INITIAL_QUANTITY + " less ytd " + f.number("ytd")
                + " with refills of 91");
          }
        }
        default -> { }
      }
    }
    for (var w : warehouseYtd.entrySet()) {
      long sum = districtYtd.getOrDefault(w.getKey(), 0L);
      if (w.getValue() != sum) {
        WorkloadInvariants.report(out, found, max, WAREHOUSE_YTD, who + "warehouse " + w.getKey() + " has ytd "
            + w.getValue() + " but its districts' ytd sum to " + sum + ": a Payment wrote one and not the other");
      }
    }
    for (var d : districts.entrySet()) {
      Fields f = d.getValue();
      long next = f.number("next", 1);
      long placed = ordersPlaced.getOrDefault(d.getKey(), 0L);
      if (next - 1 != placed) {
        WorkloadInvariants.report(out, found, max, ORDER_COUNT, who + d.getKey() + " has next order id " + next
            + ", but its customers placed " + placed + " orders: a New-Order wrote the district and not the"
            + " customer, or the other way round");
      }
      pending(d.getKey(), f, who, out, found, max);
    }
    if (stockOrders != lines) {
      WorkloadInvariants.report(out, found, max, LINES, who + "the stock rows count " + stockOrders + " order lines,"
          + " the districts " + lines + ": a New-Order wrote part of its stock rows or part of its district");
    }
    if (paid != ytd) {
      WorkloadInvariants.report(out, found, max, PAYMENTS, who + "the customers paid " + paid + " in all, the"
          + " districts' ytd sum to " + ytd + ": a Payment wrote the customer and not the district, or the other way"
          + " round");
    }
  }

  private static void pending(String key, Fields f, String who, List<Violation> out, Map<String, Integer> found,
      int max) {
    long next = f.number("next", 1);
    long expect = f.number("delivered") + 1;
    long amounts = 0;
    String problem = null;
    for (String entry : f.text("pending").split(",")) {
      if (entry.isEmpty()) {
        continue;
      }
      String[] p = entry.split(":");
      long o = p.length == 2 ? parseOr(p[0]) : -1;
      if (o != expect) {
        problem = "pending order " + entry + " where order " + expect + " was due";
        break;
      }
      amounts += parseOr(p[1]);
      expect++;
    }
    if (problem == null && expect != next) {
      problem = "pending orders end at " + (expect - 1) + " but the next order id is " + next;
    }
    if (problem == null && f.number("ordered") != f.number("deliveredAmount") + amounts) {
      problem = "ordered " + f.number("ordered") + " is not delivered " + f.number("deliveredAmount") + " plus pending "
          + amounts;
    }
    if (problem != null) {
      WorkloadInvariants.report(out, found, max, PENDING, who + key + " = \"" + f + "\": " + problem);
    }
  }

  private static long parseOr(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
