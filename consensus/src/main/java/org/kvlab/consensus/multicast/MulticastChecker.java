package org.kvlab.consensus.multicast;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The properties of atomic multicast (Défago, Schiper and Urbán's survey; Skeen's algorithm has them), checked on a
 * {@link MulticastLog}:
 *
 * <ul>
 *   <li>{@link #INTEGRITY}: a group delivers a message at most once, only if it was multicast (once), and only if
 *       the group is one of its destinations;
 *   <li>{@link #AGREEMENT} and {@link #VALIDITY} (only on a run that ended quiescent: faults over, messages flushed):
 *       a message one destination delivered is delivered by all of them; a message multicast is delivered by its
 *       destinations;
 *   <li>{@link #PREFIX_ORDER}: two groups deliver the messages they both deliver in the same relative order;
 *   <li>{@link #ACYCLIC_ORDER}: the relation "some group delivers m before m'" has no cycle (pairwise prefix order
 *       does not exclude one through three groups).
 * </ul>
 */
public final class MulticastChecker {
  public static final String INTEGRITY = "integrity";
  public static final String AGREEMENT = "agreement";
  public static final String VALIDITY = "validity";
  public static final String PREFIX_ORDER = "prefix order";
  public static final String ACYCLIC_ORDER = "acyclic order";

  /** One broken property, with the messages and groups that break it. */
  public record Violation(String kind, String detail) {
    @Override
    public String toString() {
      return kind + ": " + detail;
    }
  }

  private MulticastChecker() {}

  /**
   * The violations in {@code log}, at most a few of each kind. {@code quiescent}: the run ended with every fault
   * over and every message flushed, so what is not delivered by then never will be (agreement and validity are
   * checked only then).
   */
  public static List<Violation> check(MulticastLog log, boolean quiescent) {
    List<Violation> out = new ArrayList<>();
    integrity(log, out);
    if (quiescent) {
      delivery(log, out);
    }
    prefixOrder(log, out);
    acyclic(log, out);
    return out;
  }

  private static final int MOST_PER_KIND = 5;

  private static void add(List<Violation> out, String kind, String detail) {
    if (out.stream().filter(v -> v.kind().equals(kind)).count() < MOST_PER_KIND) {
      out.add(new Violation(kind, detail));
    }
  }

  private static void integrity(MulticastLog log, List<Violation> out) {
    log.sent().forEach((id, sends) -> {
      if (sends.size() > 1) {
        add(out, INTEGRITY, "message " + id + " multicast " + sends.size() + " times: " + sends);
      }
    });
    log.delivered().forEach((g, ids) -> {
      Set<Long> seen = new HashSet<>();
      for (long id : ids) {
        List<MulticastLog.Sent> sends = log.sent().get(id);
        if (!seen.add(id)) {
          add(out, INTEGRITY, "group " + g + " delivered message " + id + " twice");
        } else if (sends == null) {
          add(out, INTEGRITY, "group " + g + " delivered message " + id + ", which no group multicast");
        } else if (!sends.get(0).dest().contains(g)) {
          add(out, INTEGRITY, "group " + g + " delivered message " + id + ", multicast to " + sends.get(0).dest());
        }
      }
    });
  }

  private static void delivery(MulticastLog log, List<Violation> out) {
    Map<Integer, Set<Long>> has = new HashMap<>();
    log.delivered().forEach((g, ids) -> has.put(g, new HashSet<>(ids)));
    log.sent().forEach((id, sends) -> {
      List<Integer> by = new ArrayList<>();
      List<Integer> missing = new ArrayList<>();
      for (int g : sends.get(0).dest()) {
        (has.getOrDefault(g, Set.of()).contains(id) ? by : missing).add(g);
      }
      if (!missing.isEmpty()) {
        add(out, by.isEmpty() ? VALIDITY : AGREEMENT, "message " + id + " from group " + sends.get(0).from()
            + " to " + sends.get(0).dest() + (by.isEmpty() ? "" : ": delivered by " + by + ",") + " never delivered"
            + " by " + missing);
      }
    });
  }

  private static void prefixOrder(MulticastLog log, List<Violation> out) {
    List<Integer> groups = new ArrayList<>(log.delivered().keySet());
    Map<Integer, Map<Long, Integer>> position = new HashMap<>();
    for (int g : groups) {
      Map<Long, Integer> pos = new HashMap<>();
      List<Long> ids = log.delivered().get(g);
      for (int i = 0; i < ids.size(); i++) {
        pos.putIfAbsent(ids.get(i), i);
      }
      position.put(g, pos);
    }
    for (int i = 0; i < groups.size(); i++) {
      for (int j = i + 1; j < groups.size(); j++) {
        int a = groups.get(i);
        int b = groups.get(j);
        Map<Long, Integer> posB = position.get(b);
        long lastId = 0;
        int last = -1;
        for (long id : log.delivered().get(a)) {
          Integer p = posB.get(id);
          if (p == null) {
            continue;
          }
          if (p < last) {
            add(out, PREFIX_ORDER, "group " + a + " delivered " + lastId + " before " + id + ", group " + b
                + " delivered them the other way round");
            break;
          }
          last = p;
          lastId = id;
        }
      }
    }
  }

  private static void acyclic(MulticastLog log, List<Violation> out) {
    Map<Long, Set<Long>> next = new LinkedHashMap<>();
    Map<Long, Integer> into = new HashMap<>();
    for (List<Long> ids : log.delivered().values()) {
      for (int i = 0; i < ids.size(); i++) {
        next.computeIfAbsent(ids.get(i), x -> new HashSet<>());
        into.putIfAbsent(ids.get(i), 0);
        if (i > 0 && !ids.get(i - 1).equals(ids.get(i)) && next.get(ids.get(i - 1)).add(ids.get(i))) {
          into.merge(ids.get(i), 1, Integer::sum);
        }
      }
    }
    ArrayDeque<Long> free = new ArrayDeque<>();
    into.forEach((id, n) -> {
      if (n == 0) {
        free.add(id);
      }
    });
    int ordered = 0;
    while (!free.isEmpty()) {
      long id = free.poll();
      ordered++;
      for (long m : next.get(id)) {
        if (into.merge(m, -1, Integer::sum) == 0) {
          free.add(m);
        }
      }
    }
    if (ordered < into.size()) {
      List<Long> cyclic = new ArrayList<>();
      into.forEach((id, n) -> {
        if (n > 0 && cyclic.size() < 10) {
          cyclic.add(id);
        }
      });
      add(out, ACYCLIC_ORDER, (into.size() - ordered) + " messages are delivered in a cycle (each after another"
          + " at some group), e.g. " + cyclic);
    }
  }
}
