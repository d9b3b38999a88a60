package org.kvlab.protocols.camu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.kvlab.api.Client;
import org.kvlab.api.Topology;
import org.kvlab.api.Transactions;
import org.kvlab.api.TxnPartners;
import org.kvlab.api.TxnRequest;
import org.kvlab.sim.Workload;

/**
 * A TPC-C-like transaction mix for the simulator (the thesis's TPC-C, §5.1.1 / Table 5.1, reduced to what a
 * key-value store with key-local deterministic procedures can run): each partition is one warehouse; its keys are,
 * in order, the warehouse row, 10 district rows, then customer and stock rows. The mix of the thesis's table:
 * <ul>
 *   <li>New-Order 45 %: {@code add(1)} on a district row (next order id) and 3 stock rows (order counts); with
 *       probability 10 % one of the stock rows is at a remote warehouse (TPC-C: 1 % per item, 10 items);
 *   <li>Payment 43 %: {@code add(amount)} on the warehouse row, a district row (year-to-date totals) and a customer
 *       row (the customer's payments); with probability 15 % the customer is at a remote warehouse (TPC-C's rule);
 *   <li>Delivery 4 %: {@code add(1)} on a district row and 2 customer rows, home warehouse only;
 *   <li>Order-Status 4 %: reads a customer row and a district row, home warehouse only;
 *   <li>Stock-Level 4 %: reads a district row and 3 stock rows, home warehouse only.
 * </ul>
 * So at most 2 partitions per transaction and about 11 % multi-partition transactions (the thesis: "about 10 %").
 * The home warehouse is uniform; the remote one is chosen by {@link TxnPartners} (uniform, or Zipf with s = 2 over
 * the ranks home+1, home+2, ..., as the thesis's skew picks the remote partition). Transactions are independent
 * (every write depends only on the same key's value), the thesis's "independent MPOs".
 */
final class TpccLike implements Workload.CustomOperations {
  private final List<List<String>> keysOf = new ArrayList<>();
  private final TxnPartners partners;
  private final int n;

  TpccLike(Topology topology, int keys, String partner) {
    n = topology.partitions();
    for (int p = 0; p < n; p++) {
      keysOf.add(new ArrayList<>());
    }
    for (int i = 0; i < keys; i++) {
      keysOf.get(topology.partitionOf("k" + i)).add("k" + i);
    }
    for (int p = 0; p < n; p++) {
      if (keysOf.get(p).size() < 16) {
        throw new IllegalArgumentException("TPC-C-like: warehouse (partition) " + p + " has only " + keysOf.get(p)
            .size() + " keys; it needs a warehouse row, 10 district rows and some customer/stock rows. Fix: more"
            + " keys (e.g. 40 per partition)");
      }
    }
    partners = new TxnPartners(n, partner, 2);
  }

  private String district(Random r, int w) {
    return keysOf.get(w).get(1 + r.nextInt(10));
  }

  private String row(Random r, int w) {
    List<String> k = keysOf.get(w);
    return k.get(11 + r.nextInt(k.size() - 11));
  }

  /** The next transaction of a session. */
  TxnRequest next(Random r) {
    int home = r.nextInt(n);
    int remote = partners.choose(r, home, 2).get(1);
    double u = r.nextDouble();
    List<String> keys = new ArrayList<>();
    if (u < 0.45) { // New-Order
      keys.add(district(r, home));
      keys.add(row(r, home));
      keys.add(row(r, home));
      keys.add(row(r, r.nextDouble() < 0.10 ? remote : home));
      return TxnRequest.procedure("add", dedup(keys), "1");
    }
    if (u < 0.88) { // Payment
      keys.add(keysOf.get(home).get(0));
      keys.add(district(r, home));
      keys.add(row(r, r.nextDouble() < 0.15 ? remote : home));
      return TxnRequest.procedure("add", dedup(keys), Integer.toString(1 + r.nextInt(5000)));
    }
    if (u < 0.92) { // Delivery
      keys.add(district(r, home));
      keys.add(row(r, home));
      keys.add(row(r, home));
      return TxnRequest.procedure("add", dedup(keys), "1");
    }
    if (u < 0.96) { // Order-Status
      keys.add(row(r, home));
      keys.add(district(r, home));
    } else { // Stock-Level
      keys.add(district(r, home));
      keys.add(row(r, home));
      keys.add(row(r, home));
      keys.add(row(r, home));
    }
    return TxnRequest.of(dedup(keys), Map.of());
  }

  private static List<String> dedup(List<String> keys) {
    return new ArrayList<>(new java.util.TreeSet<>(keys));
  }

  @Override
  public CompletableFuture<?> maybeStart(Client client, Random random, Workload.KeyChooser keys) {
    return ((Transactions) client).transact(next(random));
  }
}
