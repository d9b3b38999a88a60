package org.kvlab.workload.tpcc;

/**
 * TPC-C-lite's keys (ids from 1, as TPC-C's), each a {@link org.kvlab.workload.Fields} record:
 * <ul>
 *   <li>{@code w:<w>} warehouse: {@code ytd} (cents);
 *   <li>{@code d:<w>:<d>} district: {@code next} (next order id, from 1), {@code ytd}, {@code lines} (order lines of
 *       its orders), {@code ordered} (their amount), {@code delivered} (the last delivered order id),
 *       {@code deliveredAmount}, {@code carrier} (of the last delivery), {@code pending} (the undelivered orders,
 *       oldest first: {@code <o>:<amount>,...}: TPC-C's NEW-ORDER table);
 *   <li>{@code c:<w>:<d>:<c>} customer: {@code balance}, {@code ytdPayment}, {@code payments}, {@code orders},
 *       {@code last} (the id of its last order);
 *   <li>{@code o:<w>:<d>:<c>} the customer's last order: {@code id}, {@code lines}, {@code amount};
 *   <li>{@code s:<w>:<i>} stock of item i at warehouse w: {@code quantity} (absent = {@link #INITIAL_QUANTITY}),
 *       {@code ytd}, {@code orders}, {@code remote}.
 * </ul>
 * Key groups (§5.3 of seed 002: the oracle models the workload at warehouse–district granularity): {@code w<w>} holds
 * a warehouse and its stock, {@code d<w>.<d>} a district with its customers and their orders.
 */
public final class TpccKeys {
  private TpccKeys() {}

  /** A stock row's quantity before any order. */
  public static final long INITIAL_QUANTITY = 50;

  public static String warehouse(int w) {
    return "w:" + w;
  }

  public static String district(int w, int d) {
    return "d:" + w + ":" + d;
  }

  public static String customer(int w, int d, int c) {
    return "c:" + w + ":" + d + ":" + c;
  }

  public static String order(int w, int d, int c) {
    return "o:" + w + ":" + d + ":" + c;
  }

  public static String stock(int w, int i) {
    return "s:" + w + ":" + i;
  }

  /** An item's price in cents (items are read-only, so a function of the id stands for the ITEM table). */
  public static long price(int item) {
    return 100 + (item * 7919L) % 9901;
  }

  /** The kind of a TPC-C-lite key ({@code w}, {@code d}, {@code c}, {@code o}, {@code s}) and its ids, or null. */
  public static int[] parse(String key) {
    String[] p = key.split(":", -1);
    int want = switch (p[0]) {
      case "w" -> 2;
      case "d", "s" -> 3;
      case "c", "o" -> 4;
      default -> -1;
    };
    if (p.length != want) {
      return null;
    }
    int[] ids = new int[p.length - 1];
    try {
      for (int i = 1; i < p.length; i++) {
        ids[i - 1] = Integer.parseInt(p[i]);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return ids;
  }

  /** The key group of {@code key} (see the class comment), or null if it is not a TPC-C-lite key. */
  public static String group(String key) {
    int[] ids = parse(key);
    if (ids == null) {
      return null;
    }
    return switch (key.charAt(0)) {
      case 'w', 's' -> "w" + ids[0];
      default -> "d" + ids[0] + "." + ids[1];
    };
  }
}
