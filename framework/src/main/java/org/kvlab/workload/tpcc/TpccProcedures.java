package org.kvlab.workload.tpcc;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.kvlab.api.TxnProcedure;
import org.kvlab.api.TxnProcedures;
import org.kvlab.workload.Fields;

/**
 * TPC-C-lite's five transactions as procedures over {@link TpccKeys} (seed 002 §5.3; the rows TPC-C keeps per order
 * line and history entry are folded into the district's and the customer's counters, so that every key is known
 * before the transaction runs):
 * <ul>
 *   <li>{@code tpcc.new-order(w, d, c, i:sw:q ...)} over {@code w:<w>} (read: the tax), {@code d:<w>:<d>},
 *       {@code c:<w>:<d>:<c>}, {@code o:<w>:<d>:<c>} and {@code s:<sw>:<i>} per line: takes the district's next order
 *       id o, advances it, queues o as pending, records the order as the customer's last, and takes each line's
 *       quantity q from the stock of item i at supply warehouse sw (TPC-C's rule: below 10 left, add 91). Not
 *       key-local: the order record and the customer are written from the district's counter.
 *   <li>{@code tpcc.payment(w, d, cw, cd, c, amount)} over {@code w:<w>}, {@code d:<w>:<d>},
 *       {@code c:<cw>:<cd>:<c>}: adds the amount to the warehouse's and district's year-to-date and to the
 *       customer's payments, takes it from the customer's balance. Key-local.
 *   <li>{@code tpcc.delivery(w, carrier, districts)} over {@code d:<w>:1 .. d:<w>:<districts>}: delivers each
 *       district's oldest pending order (none pending: nothing). Key-local.
 *   <li>{@code tpcc.order-status(w, d, c)} over the customer and its last order: reads only.
 *   <li>{@code tpcc.stock-level(w, d, threshold)} over {@code d:<w>:<d>} and stock keys of warehouse w: reads only
 *       (TPC-C's reads the items of the district's last 20 orders, known only after reading; the lite one reads the
 *       stock the generator names).
 * </ul>
 */
public final class TpccProcedures {
  private TpccProcedures() {}

  public static final String NEW_ORDER = "tpcc.new-order";
  public static final String PAYMENT = "tpcc.payment";
  public static final String DELIVERY = "tpcc.delivery";
  public static final String ORDER_STATUS = "tpcc.order-status";
  public static final String STOCK_LEVEL = "tpcc.stock-level";

  /** The five procedures, for {@link TxnProcedures}. */
  public static List<TxnProcedure> all() {
    return List.of(new NewOrder(), new Payment(), new Delivery(), new ReadOnly(ORDER_STATUS, 3),
        new ReadOnly(STOCK_LEVEL, 3));
  }

  /** One order line: item, supply warehouse, quantity. */
  public record Line(int item, int supply, int quantity) {
    public String text() {
      return item + ":" + supply + ":" + quantity;
    }

    static Line parse(String text) {
      String[] p = text.split(":", -1);
      if (p.length != 3) {
        throw new NumberFormatException(text);
      }
      return new Line(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2]));
    }
  }

  private static int id(String name, String what, String value, String form) {
    TxnProcedures.wholeNumber(name, what, value, form);
    long v = Long.parseLong(value);
    if (v < 1 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("procedure " + name + ": " + what + " must be from 1, got " + v + ". Fix: "
          + form);
    }
    return (int) v;
  }

  private static void count(String name, List<String> args, int n, boolean orMore, String form) {
    if (orMore ? args.size() < n : args.size() != n) {
      throw new IllegalArgumentException("procedure " + name + " takes " + (orMore ? "at least " : "") + n
          + " arguments, got " + args + ". Fix: " + form);
    }
  }

  private static void keys(String name, List<String> keys, TreeSet<String> want, String form) {
    if (!new TreeSet<>(keys).equals(want)) {
      throw new IllegalArgumentException("procedure " + name + ": the keys must be " + want + ", got " + keys
          + ". Fix: " + form);
    }
  }

  private static final class NewOrder implements TxnProcedure {
    static final String FORM = "tpcc.new-order(w, d, c, item:supplyWarehouse:quantity ...) over w:<w>, d:<w>:<d>,"
        + " c:<w>:<d>:<c>, o:<w>:<d>:<c> and s:<supplyWarehouse>:<item> per line";

    @Override
    public String name() {
      return NEW_ORDER;
    }

    @Override
    public boolean keyLocal() {
      return false;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      count(NEW_ORDER, args, 4, true, FORM);
      int w = id(NEW_ORDER, "the warehouse", args.get(0), FORM);
      int d = id(NEW_ORDER, "the district", args.get(1), FORM);
      int c = id(NEW_ORDER, "the customer", args.get(2), FORM);
      TreeSet<String> want = new TreeSet<>(List.of(TpccKeys.warehouse(w), TpccKeys.district(w, d),
          TpccKeys.customer(w, d, c), TpccKeys.order(w, d, c)));
      for (String l : args.subList(3, args.size())) {
        Line line;
        try {
          line = Line.parse(l);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("procedure " + NEW_ORDER + ": order line '" + l + "' is not"
              + " item:supplyWarehouse:quantity. Fix: " + FORM);
        }
        if (line.item() < 1 || line.supply() < 1 || line.quantity() < 1 || line.quantity() > 10) {
          throw new IllegalArgumentException("procedure " + NEW_ORDER + ": order line '" + l + "' needs an item and"
              + " a warehouse from 1 and a quantity from 1 to 10. Fix: " + FORM);
        }
        if (!want.add(TpccKeys.stock(line.supply(), line.item()))) {
          throw new IllegalArgumentException("procedure " + NEW_ORDER + ": item " + line.item() + " of warehouse "
              + line.supply() + " is ordered twice. Fix: one line per item and supply warehouse");
        }
      }
      keys(NEW_ORDER, keys, want, FORM);
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      int w = Integer.parseInt(args.get(0));
      int d = Integer.parseInt(args.get(1));
      int c = Integer.parseInt(args.get(2));
      Map<String, ByteString> out = new TreeMap<>();
      Fields district = Fields.of(read.get(TpccKeys.district(w, d)));
      long o = district.number("next", 1);
      long amount = 0;
      int lines = args.size() - 3;
      for (String l : args.subList(3, args.size())) {
        Line line = Line.parse(l);
        amount += line.quantity() * TpccKeys.price(line.item());
        String key = TpccKeys.stock(line.supply(), line.item());
        Fields s = Fields.of(read.get(key));
        long left = s.number("quantity", TpccKeys.INITIAL_QUANTITY) - line.quantity();
        s.set("quantity", left >= 10 ? left : left + 91).add("ytd", line.quantity()).add("orders", 1)
            .add("remote", line.supply() != w ? 1 : 0);
        out.put(key, s.bytes());
      }
      String pending = district.text("pending");
      district.set("next", o + 1).add("lines", lines).add("ordered", amount)
          .set("pending", (pending.isEmpty() ? "" : pending + ",") + o + ":" + amount);
      out.put(TpccKeys.district(w, d), district.bytes());
      Fields customer = Fields.of(read.get(TpccKeys.customer(w, d, c))).add("orders", 1).set("last", o);
      out.put(TpccKeys.customer(w, d, c), customer.bytes());
      out.put(TpccKeys.order(w, d, c), Fields.of(Optional.empty()).set("id", o).set("lines", lines)
          .set("amount", amount).bytes());
      return out;
    }
  }

  private static final class Payment implements TxnProcedure {
    static final String FORM = "tpcc.payment(w, d, customerWarehouse, customerDistrict, c, amount) over w:<w>,"
        + " d:<w>:<d> and c:<customerWarehouse>:<customerDistrict>:<c>";

    @Override
    public String name() {
      return PAYMENT;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      count(PAYMENT, args, 6, false, FORM);
      int w = id(PAYMENT, "the warehouse", args.get(0), FORM);
      int d = id(PAYMENT, "the district", args.get(1), FORM);
      int cw = id(PAYMENT, "the customer's warehouse", args.get(2), FORM);
      int cd = id(PAYMENT, "the customer's district", args.get(3), FORM);
      int c = id(PAYMENT, "the customer", args.get(4), FORM);
      id(PAYMENT, "the amount (cents)", args.get(5), FORM);
      keys(PAYMENT, keys, new TreeSet<>(List.of(TpccKeys.warehouse(w), TpccKeys.district(w, d),
          TpccKeys.customer(cw, cd, c))), FORM);
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      int w = Integer.parseInt(args.get(0));
      int d = Integer.parseInt(args.get(1));
      String customer = TpccKeys.customer(Integer.parseInt(args.get(2)), Integer.parseInt(args.get(3)),
          Integer.parseInt(args.get(4)));
      long amount = Long.parseLong(args.get(5));
      Map<String, ByteString> out = new TreeMap<>();
      for (String key : List.of(TpccKeys.warehouse(w), TpccKeys.district(w, d))) {
        if (read.containsKey(key)) {
          out.put(key, Fields.of(read.get(key)).add("ytd", amount).bytes());
        }
      }
      if (read.containsKey(customer)) {
        out.put(customer, Fields.of(read.get(customer)).add("balance", -amount).add("ytdPayment", amount)
            .add("payments", 1).bytes());
      }
      return out;
    }
  }

  private static final class Delivery implements TxnProcedure {
    static final String FORM = "tpcc.delivery(w, carrier, districts) over d:<w>:1 .. d:<w>:<districts>";

    @Override
    public String name() {
      return DELIVERY;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      count(DELIVERY, args, 3, false, FORM);
      int w = id(DELIVERY, "the warehouse", args.get(0), FORM);
      id(DELIVERY, "the carrier", args.get(1), FORM);
      int districts = id(DELIVERY, "the number of districts", args.get(2), FORM);
      TreeSet<String> want = new TreeSet<>();
      for (int d = 1; d <= districts; d++) {
        want.add(TpccKeys.district(w, d));
      }
      keys(DELIVERY, keys, want, FORM);
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      long carrier = Long.parseLong(args.get(1));
      Map<String, ByteString> out = new TreeMap<>();
      read.forEach((key, v) -> {
        Fields district = Fields.of(v);
        List<String> pending = new ArrayList<>(List.of(district.text("pending").split(",")));
        pending.removeIf(String::isEmpty);
        if (pending.isEmpty()) {
          return; // TPC-C: a district without a new order is skipped
        }
        String[] oldest = pending.remove(0).split(":");
        long o = oldest.length == 2 ? parse(oldest[0]) : 0;
        long amount = oldest.length == 2 ? parse(oldest[1]) : 0;
        district.set("delivered", o).add("deliveredAmount", amount).set("carrier", carrier)
            .set("pending", String.join(",", pending));
        out.put(key, district.bytes());
      });
      return out;
    }

    private static long parse(String s) {
      try {
        return Long.parseLong(s);
      } catch (NumberFormatException e) {
        return 0;
      }
    }
  }

  /** Order-Status and Stock-Level: they read and write nothing. */
  private static final class ReadOnly implements TxnProcedure {
    private final String name;
    private final int args;

    ReadOnly(String name, int args) {
      this.name = name;
      this.args = args;
    }

    private String form() {
      return name.equals(ORDER_STATUS) ? "tpcc.order-status(w, d, c) over c:<w>:<d>:<c> and o:<w>:<d>:<c>"
          : "tpcc.stock-level(w, d, threshold) over d:<w>:<d> and stock keys s:<w>:<item>";
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      count(name, args, this.args, false, form());
      int w = id(name, "the warehouse", args.get(0), form());
      int d = id(name, "the district", args.get(1), form());
      int third = id(name, name.equals(ORDER_STATUS) ? "the customer" : "the threshold", args.get(2), form());
      if (name.equals(ORDER_STATUS)) {
        keys(name, keys, new TreeSet<>(List.of(TpccKeys.customer(w, d, third), TpccKeys.order(w, d, third))),
            form());
        return;
      }
      for (String k : keys) {
        int[] ids = TpccKeys.parse(k);
        boolean ok = k.equals(TpccKeys.district(w, d)) || (k.startsWith("s:") && ids != null && ids[0] == w);
        if (!ok) {
          throw new IllegalArgumentException("procedure " + name + ": key " + k + " is neither district " + w + "."
              + d + " nor a stock row of warehouse " + w + ". Fix: " + form());
        }
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      return Map.of();
    }
  }
}
