package org.kvlab.sim;

import java.util.List;
import java.util.Random;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.txn.TxnGenerator;

/**
 * The simulator's transaction workloads: list-append, rw-register and bank, the parameters of a
 * {@link TxnGenerator}, which draws the transactions (docs/checkers.md#transactions; the YCSB binding draws the same
 * ones, docs/ycsb.md); or a workload family of {@code org.kvlab.workload} (chirper, tpcc: {@link #family}), which
 * draws its own, one generator per run.
 *
 * @param kind list-append, rw-register or bank
 * @param minLength keys per transaction, at least (a bank transfer always has 2)
 * @param maxLength keys per transaction, at most
 * @param readShare list-append and rw-register: the probability a key is only read; bank: of a read-all transaction
 * @param distribution uniform or zipfian (constant 0.99, as YCSB) over the keys drawn from
 * @param locality the probability a key comes from the session's home partition (session id mod partitions)
 * @param family null, or the workload family that draws the transactions (the other parameters then do not apply)
 */
public record TxnWorkload(String kind, int minLength, int maxLength, double readShare, String distribution,
    double locality, org.kvlab.workload.TxnFamily family) {
  /** Every kind: the black-box checker workloads, then the families. */
  public static final List<String> KINDS = java.util.stream.Stream.concat(TxnGenerator.KINDS.stream(),
      java.util.stream.Stream.of(org.kvlab.workload.chirper.Chirper.NAME, org.kvlab.workload.tpcc.Tpcc.NAME)).toList();

  public TxnWorkload {
    if (family == null) {
      generator(kind, minLength, maxLength, readShare, distribution, locality); // validates
    }
  }

  public TxnWorkload(String kind, int minLength, int maxLength, double readShare, String distribution,
      double locality) {
    this(kind, minLength, maxLength, readShare, distribution, locality, null);
  }

  /** The transactions of a workload family (chirper, tpcc). */
  public static TxnWorkload of(org.kvlab.workload.TxnFamily family) {
    return new TxnWorkload(family.name(), 1, 1, 0, "uniform", 0, family);
  }

  private static TxnGenerator generator(String kind, int minLength, int maxLength, double readShare,
      String distribution, double locality) {
    return new TxnGenerator(kind, minLength, maxLength, readShare, distribution, locality);
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
    return generator(kind, minLength, maxLength, readShare, distribution, locality).next(r, session,
        keysByPartition, unique);
  }
}
