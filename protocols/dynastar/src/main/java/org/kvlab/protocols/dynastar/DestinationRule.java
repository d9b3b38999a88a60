package org.kvlab.protocols.dynastar;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where a multi-partition command executes (the source's first gap, decided): the partition that the command's own
 * location claims ({@code locs}, key → partition) give the most of its keys, ties to the lowest partition id.
 *
 * <p>The seed gives two rules: "the partition holding the most of ω" (§4.2.2) and "the last computed partitioning"
 * (§4.2.2-4.2.3). We take the first, computed from the locations the command carries and nothing else: the client,
 * the destination and every lender then compute it from the same message, so they agree without asking anyone, even
 * when a plan is being applied (a plan-aware rule would need every party to know the same last plan, and a client's
 * cache may be a plan behind). The client addresses this partition, which holds its request and answers it; a client
 * with another rule addresses a partition that will not execute the command, which {@link PartitionRole} refuses as
 * an invariant violation (the mutant {@code client-destination} of the tests).
 */
final class DestinationRule {
  private DestinationRule() {}

  /** The destination of a command whose keys live at {@code locs}. */
  static int target(Map<String, Integer> locs) {
    return pick(locs, false);
  }

  /** The mutant's rule (tests): ties go to the highest partition id. */
  static int highestOnTies(Map<String, Integer> locs) {
    return pick(locs, true);
  }

  private static int pick(Map<String, Integer> locs, boolean highest) {
    TreeMap<Integer, Integer> count = new TreeMap<>();
    locs.values().forEach(p -> count.merge(p, 1, Integer::sum));
    int best = -1;
    int most = 0;
    for (Map.Entry<Integer, Integer> e : (highest ? count.descendingMap() : count).entrySet()) {
      if (e.getValue() > most) {
        best = e.getKey();
        most = e.getValue();
      }
    }
    return best;
  }
}
