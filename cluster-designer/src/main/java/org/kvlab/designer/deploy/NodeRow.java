package org.kvlab.designer.deploy;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvlab.cluster.NodeState;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.wire.PeerStatus;
import org.kvlab.wire.Status;

/**
 * One row of the Deploy tab's node table: what {@link org.kvlab.cluster.ClusterBackend#status} says about one
 * server, as text for people.
 *
 * @param node the server id ({@code dc_partition})
 * @param datacenter its datacenter
 * @param address host:port it serves at
 * @param state {@link #UP}, {@link #CONNECTING}, {@link #DOWN}, {@link #STARTING} or {@link #REFUSED}
 * @param peers peers connected / expected, or "-"
 * @param rtt the round-trip times measured on its peer channels (min-max, ms), or "-"
 * @param load operations per second it handled since the previous poll, and its client connections, or "-"
 * @param pid its process id on its host, 0 if none is known
 * @param problem why it does not answer when known (another cluster answers there...), else ""
 */
public record NodeRow(String node, int datacenter, String address, String state, String peers, String rtt,
    String load, long pid, String problem) {
  public static final String UP = "up";
  public static final String CONNECTING = "connecting";
  public static final String DOWN = "down";
  public static final String STARTING = "starting";
  public static final String REFUSED = "refused";

  /** A server of the cluster before the first status came back. */
  static NodeRow planned(ServerSpec s, String state) {
    return planned(s, state, "");
  }

  /** A server of the cluster that does not run (or not yet), and why if known. */
  static NodeRow planned(ServerSpec s, String state, String problem) {
    return new NodeRow(s.id().toString(), s.id().dc(), s.host() + ":" + s.port(), state, "-", "-", "-", 0, problem);
  }

  /** The rows of one status poll; {@code load} remembers the previous poll's operation counts. */
  static List<NodeRow> of(List<NodeState> states, LoadMeter load) {
    return states.stream().map(n -> of(n, load)).toList();
  }

  static NodeRow of(NodeState n, LoadMeter load) {
    ServerSpec s = n.server();
    String id = s.id().toString();
    String address = s.host() + ":" + s.port();
    if (n.status().isEmpty()) {
      load.forget(id);
      String problem = n.problem() == null ? "" : n.problem();
      return new NodeRow(id, s.id().dc(), address, problem.isEmpty() ? DOWN : REFUSED, "-", "-", "-", n.pid(), problem);
    }
    Status st = n.status().get();
    String state = st.getPeersConnected() == st.getPeersExpected() ? UP : CONNECTING;
    String peers = st.getPeersConnected() + "/" + st.getPeersExpected();
    long pid = n.pid() != 0 ? n.pid() : st.getPid();
    return new NodeRow(id, s.id().dc(), address, state, peers, rtt(st.getPeersList()),
        load.describe(id, st), pid, "");
  }

  /** "0.4 ms" or "0.2-40.3 ms" over the connected peers with a measured RTT; "-" if none. */
  static String rtt(List<PeerStatus> peers) {
    double min = Double.MAX_VALUE;
    double max = -1;
    for (PeerStatus p : peers) {
      if (p.getConnected() && p.getRttMillis() >= 0) {
        min = Math.min(min, p.getRttMillis());
        max = Math.max(max, p.getRttMillis());
      }
    }
    if (max < 0) {
      return "-";
    }
    String lo = String.format(Locale.ROOT, "%.1f", min);
    String hi = String.format(Locale.ROOT, "%.1f", max);
    return (lo.equals(hi) ? hi : lo + "-" + hi) + " ms";
  }

  /**
   * Turns the operation counters a server reports (requests handled per type and protocol counters, all since
   * it started) into a rate between two polls. Used from one thread (the poller).
   */
  static final class LoadMeter {
    private final Map<String, long[]> previous = new HashMap<>();

    String describe(String node, Status st) {
      long total = st.getOperationsMap().values().stream().mapToLong(Long::longValue).sum();
      long now = System.nanoTime();
      long[] before = previous.put(node, new long[] {total, now, st.getUptimeMillis()});
      String clients = st.getClients() + (st.getClients() == 1 ? " client" : " clients");
      // a restarted server (uptime went back) or the first poll: no rate yet
      if (before == null || st.getUptimeMillis() < before[2] || total < before[0] || now <= before[1]) {
        return "- ops/s, " + clients;
      }
      double rate = (total - before[0]) / ((now - before[1]) / 1e9);
      return String.format(Locale.ROOT, "%.0f ops/s, %s", rate, clients);
    }

    void forget(String node) {
      previous.remove(node);
    }
  }
}
