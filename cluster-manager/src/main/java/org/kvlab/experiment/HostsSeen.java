package org.kvlab.experiment;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.kvlab.config.ClusterConfig;

/**
 * The hosts an experiment's servers and clients ran on, per datacenter, gathered as its runs place their clusters
 * and start their clients: the report's environment section ({@link Results.DatacenterHosts}).
 */
final class HostsSeen {
  private final TreeMap<Integer, Set<String>> servers = new TreeMap<>();
  private final TreeMap<Integer, Set<String>> clients = new TreeMap<>();

  /** The hosts of {@code cluster}'s servers. */
  synchronized void servers(ClusterConfig cluster) {
    for (ClusterConfig.ServerSpec s : cluster.servers()) {
      servers.computeIfAbsent(s.id().dc(), d -> new LinkedHashSet<>()).add(s.host());
    }
  }

  /** A client of datacenter {@code dc} on {@code host}. */
  synchronized void client(int dc, String host) {
    clients.computeIfAbsent(dc, d -> new LinkedHashSet<>()).add(host);
  }

  synchronized List<Results.DatacenterHosts> list() {
    TreeMap<Integer, Boolean> dcs = new TreeMap<>();
    servers.keySet().forEach(d -> dcs.put(d, true));
    clients.keySet().forEach(d -> dcs.put(d, true));
    List<Results.DatacenterHosts> out = new ArrayList<>();
    for (int d : dcs.keySet()) {
      out.add(new Results.DatacenterHosts(d, List.copyOf(servers.getOrDefault(d, Set.of())),
          List.copyOf(clients.getOrDefault(d, Set.of()))));
    }
    return out;
  }
}
