package org.kvlab.sim;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;

/**
 * Transaction workloads whose histories reveal the order of writes, for the black-box checkers
 * ({@code serializable}, {@code strict-serializable}, {@code bank}; docs/checkers.md#transactions):
 * <ul>
 *   <li>{@code list-append}: each key read returns its whole list; the other keys get a unique element appended
 *       (the {@code append} procedure, which reads the list it appends to);
 *   <li>{@code rw-register}: each key is read, and written with a unique value unless it is read-only;
 *   <li>{@code bank}: the keys are accounts (starting at 0); a transaction reads them all (with probability
 *       {@code readShare}) or transfers 1 to 5 between two of them (the {@code transfer} procedure): every read of
 *       all accounts must sum to 0.
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
public record TxnWorkload(String kind, int minLength, int maxLength, double readShare, String distribution,
    double locality) {
  public static final List<String> KINDS = List.of("list-append", "rw-register", "bank");
  private static final Map<Integer, double[]> ZIPF = new ConcurrentHashMap<>();

  public TxnWorkload {
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException("unknown transaction workload '" + kind + "'. Fix: " + org.kvlab.config
          .YamlReader.fixWithSuggestion(kind, KINDS, "use list-append, rw-register or bank"));
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

  /** Defaults for {@code kind}: 1 to 4 keys, half of them only read, uniform, no locality. */
  public static TxnWorkload of(String kind) {
    return new TxnWorkload(kind, 1, 4, 0.5, "uniform", 0);
  }

  public TxnWorkload withLength(int min, int max) {
    return new TxnWorkload(kind, min, max, readShare, distribution, locality);
  }

  public TxnWorkload withReadShare(double r) {
    return new TxnWorkload(kind, minLength, maxLength, r, distribution, locality);
  }

  public TxnWorkload withDistribution(String d) {
    return new TxnWorkload(kind, minLength, maxLength, readShare, d, locality);
  }

  public TxnWorkload withLocality(double l) {
    return new TxnWorkload(kind, minLength, maxLength, readShare, distribution, l);
  }

  /**
   * The next transaction of session {@code session}.
   *
   * @param keysByPartition the workload's keys by the partition that holds them
   * @param unique a number no earlier transaction of this simulation was given (elements and values derive from it)
   */
  public TxnRequest next(Random r, int session, List<List<String>> keysByPartition, long unique) {
    List<String> all = new ArrayList<>();
    keysByPartition.forEach(all::addAll);
    all.sort(java.util.Comparator.comparingInt(k -> Integer.parseInt(k.substring(1))));
    List<String> home = keysByPartition.get(Math.floorMod(session, keysByPartition.size()));
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
    double[] cdf = ZIPF.computeIfAbsent(size, Workload.KeyChooser::zipfCdf);
    int i = java.util.Arrays.binarySearch(cdf, r.nextDouble());
    return Math.min(size - 1, i >= 0 ? i : -i - 1);
  }
}
