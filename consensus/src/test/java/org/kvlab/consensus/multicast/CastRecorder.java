package org.kvlab.consensus.multicast;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.api.NodeId;

/**
 * What one run of {@link ReplicatedMulticastTestProtocol} did (the simulator runs on the test's thread): every
 * multicast as its group first applied it, what every replica delivered at every position in all its incarnations
 * (a restarted replica delivers again, at the same positions), the servers running at the end, and what went wrong
 * inside the run.
 */
final class CastRecorder {
  final MulticastLog log = new MulticastLog();
  final Map<Long, List<Integer>> dest = new LinkedHashMap<>();
  final Map<Integer, Integer> applied = new TreeMap<>(); // per origin group: multicasts applied
  final Map<NodeId, TreeMap<Long, Long>> positions = new TreeMap<>();
  final Map<NodeId, ReplicatedMulticastTestServer> live = new TreeMap<>();
  final List<String> failures = new ArrayList<>();
  /** The first vote a leader of the watched group committed after the watch time: (leader, id); tests. */
  NodeId watchedLeader;
  long epochMicros = -1; // the servers' clock at virtual time 0
  long watchedId;
  long watchedMicros;

  void multicastApplied(int group, long id, List<Integer> to) {
    List<Integer> before = dest.putIfAbsent(id, List.copyOf(to));
    if (before == null) {
      log.multicast(group, id, to);
      applied.merge(group, 1, Integer::sum);
    } else if (!before.equals(to)) {
      failures.add("message " + id + " applied with destinations " + before + " and " + to);
    }
  }

  void delivered(NodeId replica, long position, long id) {
    Long before = positions.computeIfAbsent(replica, r -> new TreeMap<>()).putIfAbsent(position, id);
    if (before != null && before != id) {
      failures.add(replica + " delivered " + before + " at position " + position + ", then " + id);
    }
  }

  int applied(int group) {
    return applied.getOrDefault(group, 0);
  }
}
