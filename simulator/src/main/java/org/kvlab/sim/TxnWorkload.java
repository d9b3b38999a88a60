package org.kvlab.sim;

import java.util.List;
import java.util.Random;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.txn.TxnGenerator;

/**
 * The simulator's transaction workloads (list-append, rw-register, bank): the parameters of a
 * {@link TxnGenerator}, which draws the transactions (docs/checkers.md#transactions; the YCSB binding draws the same
 * ones, docs/ycsb.md).
 *
 * @param kind list-append, rw-register or bank
 * @param minLength keys per transaction, at least (a bank transfer always has 2)
 * @param maxLength keys per transaction, at most
 * @param readShare list-append and rw-register: the probability a key is only read; bank: of a read-all transaction
 * @param distribution uniform or zipfian (constant 0.99, as YCSB) over the keys drawn from
 * @param locality the probability a key comes from the session's home partition (session id mod partitions)
 */
public record TxnWorkload(String kind, int minLength, int maxLength, double readShare, String distribution,
    double locality) {
  public static final List<String> KINDS = TxnGenerator.KINDS;

  public TxnWorkload {
    generator(kind, minLength, maxLength, readShare, distribution, locality); // validates
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
