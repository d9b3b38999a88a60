package org.kvlab.workload;

import java.util.random.RandomGenerator;
import org.kvlab.api.TxnRequest;

/**
 * A workload family of procedures over a structured key space (Chirper, TPC-C-lite): its parameters, how it draws
 * transactions (a {@link Generator} per run, as drawing may depend on what was drawn before, such as the follower
 * graph), and which keys belong together ({@link #group}), so that a placement can keep a group at one partition. The
 * simulator ({@code kvlab sim --txn-workload}) and the YCSB binding ({@code kvlab.txnworkload}) both draw here;
 * {@link WorkloadChecker} judges the family's invariants after a run.
 */
public interface TxnFamily {
  /** The family's name, as {@code --txn-workload} takes it: {@code chirper} or {@code tpcc}. */
  String name();

  /** A fresh generator for one run (its own state; thread-safe, as YCSB threads share it). */
  Generator generator();

  /**
   * The key group of {@code key}: keys of one group are accessed together by the family's transactions and belong
   * at one partition (Chirper: a user; TPC-C-lite: a district with its customers and orders, or a warehouse with
   * its stock). Null for a key that is not the family's.
   */
  String group(String key);

  /** Draws transactions. */
  interface Generator {
    /**
     * The next transaction of session {@code session} at {@code nowMicros} since the run began.
     *
     * @param unique a number no earlier transaction of this run was given (post ids and the like derive from it)
     */
    TxnRequest next(RandomGenerator r, int session, long nowMicros, long unique);
  }
}
