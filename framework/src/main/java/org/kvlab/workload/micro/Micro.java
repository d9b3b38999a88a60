package org.kvlab.workload.micro;

import org.kvlab.workload.TxnFamily;

/**
 * Seed 004's micro-benchmark as a workload family ({@code kvlab.txnworkload=micro} in the YCSB binding): each
 * transaction local with probability {@code localShare}, else global, over {@code micro:0} to
 * {@code micro:<keys - 1>} ({@link MicroWorkload}). One group per key. Its invariant is the Conveyor Belt's
 * serializability, judged by the black-box checkers, so the {@code workload} checker has nothing of its own here.
 */
public record Micro(double localShare, int keys) implements TxnFamily {
  public static final String NAME = "micro";

  public Micro {
    if (!(localShare >= 0 && localShare <= 1) || keys < 1) {
      throw new IllegalArgumentException("the micro-benchmark needs a local share from 0 to 1 and 1 key or more, got "
          + localShare + " and " + keys + ". Fix: e.g. kvlab.localshare=0.7 kvlab.microkeys=20");
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public TxnFamily.Generator generator() {
    return (r, session, nowMicros, unique) -> MicroWorkload.next(r, localShare, keys);
  }

  @Override
  public String group(String key) {
    return key.startsWith("micro:") ? key : null;
  }
}
