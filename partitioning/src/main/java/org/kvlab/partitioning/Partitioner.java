package org.kvlab.partitioning;

/** Splits a {@link WorkloadGraph} into balanced partitions with a small edge cut. */
public interface Partitioner {
  /**
   * @param parts number of partitions (at least 1)
   * @param imbalance the largest allowed load of a partition over the mean (e.g. 1.2: METIS's 20%, DynaStar's setting)
   * @param seed makes a run repeatable
   */
  Placement partition(WorkloadGraph graph, int parts, double imbalance, long seed);

  /** A short name for reports ({@code metis}, {@code greedy}). */
  String name();
}
