package org.kvlab.consensus.multicast;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What an atomic multicast did in one run, as the {@link MulticastChecker} judges it: every multicast (its id, its
 * sender and its destination groups) and every group's deliveries in the order it made them. A test records into it
 * from the protocol's servers (in the simulator, all on one thread); record a multicast or a delivery in the event
 * that makes it, so a crash between events never loses one.
 */
public final class MulticastLog {
  /** One multicast: sent by group {@code from} to {@code dest}. */
  public record Sent(long id, int from, SortedSet<Integer> dest) {}

  private final Map<Long, List<Sent>> sent = new LinkedHashMap<>();
  private final Map<Integer, List<Long>> delivered = new TreeMap<>();

  /** Group {@code from} multicast message {@code id} to {@code dest}. */
  public void multicast(int from, long id, Collection<Integer> dest) {
    sent.computeIfAbsent(id, x -> new ArrayList<>()).add(new Sent(id, from,
        Collections.unmodifiableSortedSet(new TreeSet<>(dest))));
  }

  /** Group {@code group} delivered message {@code id} (after every message it delivered before). */
  public void delivered(int group, long id) {
    delivered.computeIfAbsent(group, g -> new ArrayList<>()).add(id);
  }

  /** Every multicast, by id, in the order of first send (more than one per id is an integrity violation). */
  public Map<Long, List<Sent>> sent() {
    return Collections.unmodifiableMap(sent);
  }

  /** Each group's deliveries, in order; groups that delivered nothing are absent. */
  public Map<Integer, List<Long>> delivered() {
    return Collections.unmodifiableMap(delivered);
  }

  /** How many deliveries, over all groups. */
  public long deliveries() {
    return delivered.values().stream().mapToLong(List::size).sum();
  }
}
