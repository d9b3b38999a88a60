package org.kvlab.check.txn;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;

/**
 * Draws the transactions of the workloads whose histories reveal the order of writes, for the black-box checkers
 * ({@code serializable}, {@code strict-serializable}, {@code bank}; docs/checkers.md#transactions). The simulator
 * ({@code org.kvlab.sim.TxnWorkload}) and the YCSB binding ({@code kvlab.txnworkload}, docs/ycsb.md) both draw here:
 * <ul>
 *   <li>{@code list-append}: each key read returns its whole list; the other keys get a unique element appended
 *       (the {@code append} procedure, which reads the list it appends to);
 *   <li>{@code rw-register}: each key is read, and written with a unique value unless it is read-only;
 *   <li>{@code bank}: the keys are accounts (starting at 0); a transaction reads them all (with probability
 *       {@code readShare}) or transfers 1 to 5 between two of them (the {@code transfer} procedure): every read of
 *       all accounts must sum to 0;
 *   <li>{@code store}: the online store of seed 004 ({@link org.kvlab.workload.store.StoreWorkload}; items = the
 *       keys; judged by the {@code store} checker, not by {@code serializable}: its values are not unique);
 *   <li>{@code micro}: seed 004's micro-benchmark ({@link org.kvlab.workload.micro.MicroWorkload}); readShare is the
 *       share of local operations.
 * </ul>
 *
 * @param kind list-append, rw-register or bank
 * @param minLength keys per transaction, at least (a bank transfer always has 2)
 * @param maxLength keys per transaction, at most
 * @param readShare list-append and rw-register: the probability a key is only read; bank: of a read-all transaction
 * @param distribution uniform or zipfian (constant 0.99, as YCSB) over the keys drawn from
 * @param locality the probability a key comes from the session's home partition (session id mod partitions) rather
 *     than the whole key space: the YCSB-T knob of ../shared/reference/001-002-004-transactions-partitioning.md §D.1
 */
public record TxnGenerator(String kind, int minLength, int maxLength, double readShare, String distribution,
    double locality) {
  public static final List<String> KINDS = List.of("list-append", "rw-register", "bank", "store", "micro");
  /** Keys by the number they end with (k2 before k10), then by name: the rank order of the zipfian distribution. */
  public static final Comparator<String> KEY_ORDER = Comparator.comparingLong(TxnGenerator::number)
      .thenComparing(Comparator.naturalOrder());
  private static final Map<Integer, double[]> ZIPF = new ConcurrentHashMap<>();

  public TxnGenerator {
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException("unknown transaction workload '" + kind + "'. Fix: " + org.kvlab.config
          .YamlReader.fixWithSuggestion(kind, KINDS, "use list-append, rw-register, bank, store or micro"));
    }
    if (minLength < 1 || maxLength < minLength) {
      throw new IllegalArgumentException("transaction length must be 1 <= min <= max, got " + minLength + ".."
          + maxLength + ". Fix: e.g. 1..4");
    }
    if (!distribution.equals("uniform") && !distribution.equals("zipfian")) {
      throw new IllegalArgumentException("unknown key distribution '" + distribution + "'. Fix: use uniform or"
          + " zipfian");
    }
    if (!(readShare >= 0 && readShare <= 1 && locality >= 0 && locality <= 1)) {
      throw new IllegalArgumentException("readShare and locality are probabilities from 0 to 1, got " + readShare
          + " and " + locality);
    }
  }

  /**
   * The next transaction of session {@code session}.
   *
   * @param keysByPartition the workload's keys by the partition that holds them
   * @param unique a number no earlier transaction of this history was given (elements and values derive from it)
   */
  public TxnRequest next(Random r, int session, List<List<String>> keysByPartition, long unique) {
    List<String> all = new ArrayList<>();
    keysByPartition.forEach(all::addAll);
    all.sort(KEY_ORDER);
    return next(r, session, all, keysByPartition.get(Math.floorMod(session, keysByPartition.size())), unique);
  }

  /**
   * As {@link #next(Random, int, List, long)}, with the key space already in {@link #KEY_ORDER} and the session's
   * home partition's keys (for callers that draw many transactions from one large key space).
   */
  public TxnRequest next(Random r, int session, List<String> all, List<String> home, long unique) {
    if (kind.equals("store")) {
      return org.kvlab.workload.store.StoreWorkload.next(r, session, all.size(), unique);
    }
    if (kind.equals("micro")) {
      return org.kvlab.workload.micro.MicroWorkload.next(r, readShare, all.size());
    }
    if (kind.equals("bank")) {
      if (all.size() < 2 || r.nextDouble() < readShare) {
        return TxnRequest.of(all, Map.of());
      }
      List<String> two = keys(r, all, home, 2);
      return TxnRequest.procedure(TxnProcedures.TRANSFER, two, Integer.toString(1 + r.nextInt(5)), two.get(0),
          two.get(1));
    }
    List<String> keys = keys(r, all, home, minLength + r.nextInt(maxLength - minLength + 1));
    List<String> written = new ArrayList<>();
    for (String k : keys) {
      if (r.nextDouble() >= readShare) {
        written.add(k);
      }
    }
    if (written.isEmpty()) {
      return TxnRequest.of(keys, Map.of());
    }
    if (kind.equals("list-append")) {
      List<String> args = new ArrayList<>();
      args.add(Long.toString(unique));
      args.addAll(written);
      return new TxnRequest(keys, Map.of(), TxnProcedures.APPEND, args);
    }
    Map<String, ByteString> writes = new TreeMap<>();
    for (String k : written) {
      writes.put(k, ByteString.copyFromUtf8("s" + session + "." + unique));
    }
    return TxnRequest.of(keys, writes);
  }

  /** The cumulative distribution of YCSB's Zipf (constant 0.99) over {@code keys} ranks. */
  public static double[] zipfCdf(int keys) {
    return org.kvlab.workload.Zipf.cdf(keys, 0.99);
  }

  /** {@code n} distinct keys (fewer if the key space is smaller), each from home with probability locality. */
  private List<String> keys(Random r, List<String> all, List<String> home, int n) {
    List<String> out = new ArrayList<>();
    for (int guard = 0; out.size() < Math.min(n, all.size()) && guard < 20 * n + 100; guard++) {
      List<String> from = !home.isEmpty() && r.nextDouble() < locality ? home : all;
      String k = from.get(index(r, from.size()));
      if (!out.contains(k)) {
        out.add(k);
      }
    }
    return out;
  }

  private int index(Random r, int size) {
    if (distribution.equals("uniform")) {
      return r.nextInt(size);
    }
    double[] cdf = ZIPF.computeIfAbsent(size, TxnGenerator::zipfCdf);
    int i = Arrays.binarySearch(cdf, r.nextDouble());
    return Math.min(size - 1, i >= 0 ? i : -i - 1);
  }

  /** The number a key ends with (0 if none; saturating on more digits than a long holds). */
  private static long number(String key) {
    int i = key.length();
    while (i > 0 && Character.isDigit(key.charAt(i - 1))) {
      i--;
    }
    long n = 0;
    for (int j = Math.max(i, key.length() - 18); j < key.length(); j++) {
      n = n * 10 + (key.charAt(j) - '0');
    }
    return n;
  }
}
