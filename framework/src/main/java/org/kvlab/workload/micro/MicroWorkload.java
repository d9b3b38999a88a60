package org.kvlab.workload.micro;

import java.util.List;
import java.util.random.RandomGenerator;
import org.kvlab.api.TxnRequest;

/**
 * Draws the micro-benchmark's operations ({@link MicroProcedures}): local with probability {@code localRatio} (the
 * paper's 0 to 90%), else global; each over one key {@code micro:<k>}, k uniform below {@code keys}.
 */
public final class MicroWorkload {
  private MicroWorkload() {}

  public static TxnRequest next(RandomGenerator r, double localRatio, int keys) {
    long k = r.nextInt(keys);
    if (r.nextDouble() < localRatio) {
      return TxnRequest.procedure(MicroProcedures.LOCAL, List.of(MicroProcedures.key(k)));
    }
    return TxnRequest.procedure(MicroProcedures.GLOBAL, List.of(MicroProcedures.key(k)), Long.toString(k));
  }
}
