package org.kvlab.workload.tpcc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.kvlab.api.TxnRequest;
import org.kvlab.workload.TxnFamily;

/**
 * TPC-C-lite (seed 002 §5.3; ../shared/reference digest B.3, D.1): the five transactions of {@link TpccProcedures}
 * in TPC-C's mix, New-Order 45%, Payment 43%, Delivery 4%, Order-Status 4%, Stock-Level 4%, over
 * {@code warehouses} warehouses of {@code districts} districts of {@code customers} customers, and {@code items}
 * items stocked at every warehouse. A session works for its home warehouse ({@code session mod warehouses} + 1, as a
 * TPC-C terminal); districts, customers and items are drawn uniformly (TPC-C's NURand skew is left out). A New-Order
 * has 5 to 15 lines of distinct items, quantities 1 to 10, each line supplied by another warehouse with probability
 * {@code remoteLine} (TPC-C: 1%); a Payment is for a customer of another warehouse with probability
 * {@code remotePayment} (TPC-C: 15%). TPC-C's 1% of New-Orders that roll back on an unused item are left out.
 *
 * @param warehouses warehouses, from 1
 * @param districts districts per warehouse (TPC-C: 10)
 * @param customers customers per district (TPC-C: 3,000; fewer keep a simulation small)
 * @param items items, each stocked at every warehouse (TPC-C: 100,000)
 * @param remoteLine probability that an order line is supplied by another warehouse
 * @param remotePayment probability that a payment is for a customer of another warehouse
 */
public record Tpcc(int warehouses, int districts, int customers, int items, double remoteLine, double remotePayment)
    implements TxnFamily {
  public static final String NAME = "tpcc";
  /** The mix: cumulative shares of New-Order, Payment, Delivery, Order-Status (Stock-Level the rest). */
  static final double[] MIX = {0.45, 0.88, 0.92, 0.96};
  static final int MIN_LINES = 5;
  static final int MAX_LINES = 15;
  /** Stock rows a Stock-Level reads. */
  static final int STOCK_LEVEL_ITEMS = 20;

  public Tpcc {
    if (warehouses < 1 || districts < 1 || customers < 1 || items < MAX_LINES) {
      throw new IllegalArgumentException("tpcc needs at least 1 warehouse, 1 district per warehouse, 1 customer per"
          + " district and " + MAX_LINES + " items (an order has up to " + MAX_LINES + " distinct ones), got "
          + warehouses + ", " + districts + ", " + customers + ", " + items + ". Fix: e.g. 2 warehouses, 10"
          + " districts, 30 customers, 1000 items");
    }
    if (!(remoteLine >= 0 && remoteLine <= 1 && remotePayment >= 0 && remotePayment <= 1)) {
      throw new IllegalArgumentException("tpcc: the remote shares are from 0 to 1, got " + remoteLine + " and "
          + remotePayment + ". Fix: TPC-C's are 0.01 and 0.15");
    }
  }

  /** {@code warehouses} warehouses of 10 districts of 30 customers, 1,000 items, TPC-C's remote shares. */
  public static Tpcc of(int warehouses) {
    return new Tpcc(warehouses, 10, 30, 1000, 0.01, 0.15);
  }

  public Tpcc withRemote(double line, double payment) {
    return new Tpcc(warehouses, districts, customers, items, line, payment);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String group(String key) {
    return TpccKeys.group(key);
  }

  @Override
  public TxnFamily.Generator generator() {
    return this::next; // stateless: every key is known from the arguments
  }

  /** The next transaction of {@code session} (the time and the unique number are not needed). */
  TxnRequest next(RandomGenerator r, int session, long nowMicros, long unique) {
    int w = Math.floorMod(session, warehouses) + 1;
    int d = 1 + r.nextInt(districts);
    double p = r.nextDouble();
    if (p < MIX[0]) {
      return newOrder(r, w, d);
    }
    if (p < MIX[1]) {
      int cw = w;
      int cd = d;
      if (warehouses > 1 && r.nextDouble() < remotePayment) {
        cw = other(r, w);
        cd = 1 + r.nextInt(districts);
      }
      int c = 1 + r.nextInt(customers);
      return TxnRequest.procedure(TpccProcedures.PAYMENT, List.of(TpccKeys.warehouse(w), TpccKeys.district(w, d),
          TpccKeys.customer(cw, cd, c)), s(w), s(d), s(cw), s(cd), s(c), s(100 + r.nextInt(500_000)));
    }
    if (p < MIX[2]) {
      List<String> keys = new ArrayList<>();
      for (int k = 1; k <= districts; k++) {
        keys.add(TpccKeys.district(w, k));
      }
      return TxnRequest.procedure(TpccProcedures.DELIVERY, keys, s(w), s(1 + r.nextInt(10)), s(districts));
    }
    if (p < MIX[3]) {
      int c = 1 + r.nextInt(customers);
      return TxnRequest.procedure(TpccProcedures.ORDER_STATUS, List.of(TpccKeys.customer(w, d, c),
          TpccKeys.order(w, d, c)), s(w), s(d), s(c));
    }
    List<String> keys = new ArrayList<>();
    keys.add(TpccKeys.district(w, d));
    for (int i : distinctItems(r, Math.min(STOCK_LEVEL_ITEMS, items))) {
      keys.add(TpccKeys.stock(w, i));
    }
    return TxnRequest.procedure(TpccProcedures.STOCK_LEVEL, keys, s(w), s(d), s(10 + r.nextInt(11)));
  }

  private TxnRequest newOrder(RandomGenerator r, int w, int d) {
    int c = 1 + r.nextInt(customers);
    List<String> keys = new ArrayList<>(List.of(TpccKeys.warehouse(w), TpccKeys.district(w, d),
        TpccKeys.customer(w, d, c), TpccKeys.order(w, d, c)));
    List<String> args = new ArrayList<>(List.of(s(w), s(d), s(c)));
    for (int i : distinctItems(r, MIN_LINES + r.nextInt(MAX_LINES - MIN_LINES + 1))) {
      int supply = warehouses > 1 && r.nextDouble() < remoteLine ? other(r, w) : w;
      keys.add(TpccKeys.stock(supply, i));
      args.add(new TpccProcedures.Line(i, supply, 1 + r.nextInt(10)).text());
    }
    return new TxnRequest(keys, java.util.Map.of(), TpccProcedures.NEW_ORDER, args);
  }

  private Set<Integer> distinctItems(RandomGenerator r, int n) {
    Set<Integer> out = new LinkedHashSet<>();
    while (out.size() < n) {
      out.add(1 + r.nextInt(items));
    }
    return out;
  }

  private int other(RandomGenerator r, int w) {
    int o = 1 + r.nextInt(warehouses - 1);
    return o >= w ? o + 1 : o;
  }

  private static String s(long n) {
    return Long.toString(n);
  }
}
