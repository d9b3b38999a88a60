package org.kvlab.partitioning.operations;

import java.util.List;
import java.util.Map;

/**
 * A transaction type of an application (seed 004's "transaction"): its parameters, the key templates it reads and
 * writes (pessimistic: every key any execution path may touch), and its weight (frequency in the workload; 1 if
 * unknown).
 */
public record OperationType(String name, List<String> params, List<KeyTemplate> reads, List<KeyTemplate> writes,
    double weight) {

  public OperationType {
    params = List.copyOf(params);
    reads = List.copyOf(reads);
    writes = List.copyOf(writes);
    if (!(weight > 0)) {
      throw new IllegalArgumentException("type " + name + ": weight must be positive, got " + weight);
    }
  }

  /**
   * Whether {@code key}, read ({@code write} false) or written by an operation of this type with {@code args}, is
   * covered by a declared template: the run-time check that the declaration the classification rests on holds.
   */
  public boolean declares(String key, Map<String, String> args, boolean write) {
    for (KeyTemplate t : write ? writes : reads) {
      if (t.matches(key, args)) {
        return true;
      }
    }
    return write ? false : declares(key, args, true); // a key the type writes it may also read
  }
}
