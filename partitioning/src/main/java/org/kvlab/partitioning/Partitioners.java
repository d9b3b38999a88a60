package org.kvlab.partitioning;

import java.util.List;

/** The partitioners by name: {@code metis}, {@code greedy}, or {@code auto} (METIS where it runs, else greedy). */
public final class Partitioners {
  public static final List<String> NAMES = List.of("auto", "metis", "greedy");

  private Partitioners() {}

  public static Partitioner greedy() {
    return new GreedyPartitioner();
  }

  /** METIS if {@code gpmetis} runs here, else the pure-Java partitioner. */
  public static Partitioner auto() {
    MetisPartitioner metis = new MetisPartitioner();
    return metis.available() ? metis : greedy();
  }

  public static Partitioner byName(String name) {
    return switch (name) {
      case "auto" -> auto();
      case "metis" -> new MetisPartitioner();
      case "greedy" -> greedy();
      default -> throw new IllegalArgumentException("unknown partitioner '" + name + "'. Fix: use one of " + NAMES);
    };
  }
}
