package org.kvlab.workload.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.kvlab.api.TxnRequest;

/**
 * Draws the online store's operations ({@link StoreProcedures}) with the weights of examples/operations/online-store.yaml:
 * create 10%, addToCart 50%, order 20%, browseCatalog 20%. Session s shops with carts {@code s.0} to {@code s.2}; items
 * are {@code 0} to {@code items - 1} (the workload's key count); addToCart puts 1 to 3 units; an order's record number
 * is the transaction's unique number.
 */
public final class StoreWorkload {
  public static final int CARTS_PER_SESSION = 3;

  private StoreWorkload() {}

  public static TxnRequest next(Random r, int session, int items, long unique) {
    return next(r, session + ".", items, unique);
  }

  /**
   * As {@link #next(Random, int, int, long)}, the carts named {@code prefix} and 0 to 2: e.g. {@code "1@s4."}, a
   * server-specific id of server 1 (the Conveyor Belt routes it there).
   */
  public static TxnRequest next(Random r, String prefix, int items, long unique) {
    String c = prefix + r.nextInt(CARTS_PER_SESSION);
    int x = r.nextInt(100);
    if (x < 10) {
      return TxnRequest.procedure(StoreProcedures.CREATE, List.of(StoreProcedures.cart(c)), c);
    }
    if (x < 60) {
      String i = Integer.toString(r.nextInt(items));
      return TxnRequest.procedure(StoreProcedures.ADD, List.of(StoreProcedures.cart(c), StoreProcedures.stock(i)), c,
          i, Integer.toString(1 + r.nextInt(3)));
    }
    if (x < 80) {
      List<String> keys = catalog("stock:", items);
      keys.add(StoreProcedures.cart(c));
      keys.add(StoreProcedures.record(c, Long.toString(unique)));
      return TxnRequest.procedure(StoreProcedures.ORDER, keys, c, Long.toString(unique));
    }
    return TxnRequest.procedure(StoreProcedures.BROWSE, catalog("item:", items));
  }

  private static List<String> catalog(String prefix, int items) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      keys.add(prefix + i);
    }
    return keys;
  }
}
