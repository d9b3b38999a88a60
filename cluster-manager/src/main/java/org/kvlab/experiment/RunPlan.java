package org.kvlab.experiment;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.store.Durability;

/**
 * What one run does: the cluster it starts (null when it uses a running one), its clients, and the YCSB
 * properties every client gets. Built from an {@link Experiment} and a {@link Experiment.Run} by
 * {@link #of}; the meaning of each sweep variable is here.
 */
public record RunPlan(Experiment.Run run, ClusterConfig cluster, int clientsPerDatacenter, int threads,
    Map<String, String> properties, List<Integer> clientDatacenters) {

  public static final String LOOPBACK = "127.0.0.1";

  /** The same plan with {@code placed} as its cluster (the backend's hosts and ports). */
  public RunPlan withCluster(ClusterConfig placed) {
    return new RunPlan(run, placed, clientsPerDatacenter, threads, properties, clientDatacenters);
  }

  /** Client JVMs in all: per datacenter times the datacenters that get clients. */
  public int clientCount() {
    return clientsPerDatacenter * clientDatacenters.size();
  }

  /**
   * The plan of {@code run}. {@code dataDir} is where its servers keep data; the servers listen on free
   * loopback ports. With {@code running} (a cluster already running) no cluster is started, and sweeps
   * that change the cluster are rejected.
   */
  public static RunPlan of(Experiment e, Experiment.Run run, Path dataDir, ClusterConfig running) throws IOException {
    Map<String, String> vars = run.variation().values();
    Map<String, String> props = new LinkedHashMap<>(e.workload());
    int clients = e.clients().perDatacenter();
    int threads = e.clients().threads();
    for (Map.Entry<String, String> v : vars.entrySet()) {
      switch (v.getKey()) {
        case "readproportion":
          props.put("readproportion", v.getValue());
          props.put("updateproportion", updateShare(e.workload(), v.getValue()));
          break;
        case "threads":
          threads = Integer.parseInt(v.getValue());
          break;
        case "clients":
          clients = Integer.parseInt(v.getValue());
          break;
        case "wan":
        case "clockskew":
        case "durability":
          if (running != null) {
            throw new IllegalArgumentException("the sweep of '" + v.getKey() + "' changes the cluster, which a run on a"
                + " running cluster (--use-running) cannot do. Fix: run without --use-running, or remove that sweep");
          }
          break;
        default:
          if (ExperimentLoader.isClusterParam(v.getKey())) {
            if (running != null) {
              throw new IllegalArgumentException("the sweep of '" + v.getKey() + "' changes the cluster's protocol"
                  + " parameters, which a run on a running cluster (--use-running) cannot do. Fix: run without"
                  + " --use-running, or remove that sweep");
            }
            break;
          }
          props.put(v.getKey(), v.getValue());
      }
    }
    ClusterConfig cluster = running != null ? running : cluster(e, run, dataDir);
    int dcs = cluster.topology().datacenters();
    List<Integer> clientDcs = e.clients().datacenters();
    if (clientDcs.isEmpty()) {
      clientDcs = java.util.stream.IntStream.range(0, dcs).boxed().toList();
    } else if (clientDcs.get(clientDcs.size() - 1) >= dcs) {
      throw new IllegalArgumentException("the experiment puts clients in datacenter " + clientDcs.get(clientDcs.size() - 1)
          + ", and the cluster has " + dcs + " (numbered from 0). Fix: change 'clients: datacenters' in the experiment");
    }
    return new RunPlan(run, cluster, clients, threads, props, clientDcs);
  }

  /** updateproportion = 1 - readproportion - the workload's other proportions, written without float noise. */
  static String updateShare(Map<String, String> workload, String read) {
    BigDecimal rest = BigDecimal.ONE.subtract(new BigDecimal(read));
    for (String p : ExperimentLoader.OTHER_PROPORTIONS) {
      if (workload.containsKey(p)) {
        rest = rest.subtract(new BigDecimal(workload.get(p).trim()));
      }
    }
    if (rest.signum() < 0) {
      rest = BigDecimal.ZERO;
    }
    return rest.stripTrailingZeros().toPlainString();
  }

  private static ClusterConfig cluster(Experiment e, Experiment.Run run, Path dataDir) throws IOException {
    Experiment.ClusterSpec spec = e.cluster();
    ClusterConfig template = spec.template();
    Topology topology = new Topology(spec.datacenters(), spec.partitions(), template != null ? template.topology().replicas() : 1);
    Map<String, String> vars = run.variation().values();
    Durability durability = spec.durability();
    if (vars.containsKey("durability")) {
      durability = vars.get("durability").equalsIgnoreCase("sync") ? Durability.SYNC : Durability.NONE;
    }
    long[][] rtt = template != null ? template.emulation().rttMillis() : uniform(topology, spec.wanRttMillis());
    String wan = vars.get("wan");
    if (wan != null) {
      String w = wan.toLowerCase(Locale.ROOT);
      if (w.equals("off")) {
        rtt = null;
      } else if (!w.equals("on")) {
        rtt = uniform(topology, Params.parseDuration(w, "wan").toMillis());
      } else if (rtt == null) {
        rtt = uniform(topology, spec.wanRttMillis());
      }
    }
    Map<NodeId, Long> skew = template != null ? template.emulation().skewMillis() : Map.of();
    if (vars.containsKey("clockskew")) {
      skew = clockSkew(topology, Params.parseDuration(vars.get("clockskew"), "clockskew").toMillis());
    }
    List<Integer> ports = freePorts(topology.size());
    List<ServerSpec> servers = new ArrayList<>();
    int i = 0;
    for (NodeId id : topology.allNodes()) {
      servers.add(new ServerSpec(id, LOOPBACK, ports.get(i++)));
    }
    return new ClusterConfig(dataDir.resolve("cluster.yaml").toString(), clusterName(e), run.protocol(),
        params(template, run), topology, servers,
        new StorageSpec(spec.engine(), durability, dataDir.toAbsolutePath().normalize()),
        new EmulationSpec(rtt, skew), template != null ? template.limits() : Limits.defaults());
  }

  /**
   * The protocol parameters of {@code run}'s cluster: the template's that the run's protocol declares, then each
   * swept {@code cluster.params.<name>} set to the run's value (the loader checked that the protocol declares it).
   */
  static Params params(ClusterConfig template, Experiment.Run run) {
    Map<String, String> params = new TreeMap<>(
        template != null ? declaredParams(template.params(), run.protocol()).asMap() : Map.of());
    run.variation().values().forEach((k, v) -> {
      if (ExperimentLoader.isClusterParam(k)) {
        params.put(ExperimentLoader.clusterParam(k), v);
      }
    });
    return new Params(params);
  }

  /**
   * The template's parameters that {@code protocol} declares: a template written for one protocol (say
   * GentleRain's heartbeat) may be run with others, which would refuse parameters they do not read.
   */
  static Params declaredParams(Params params, String protocol) {
    java.util.Set<String> declared = org.kvlab.api.Protocols.byName(protocol).parameters().keySet();
    Map<String, String> kept = new java.util.TreeMap<>(params.asMap());
    kept.keySet().retainAll(declared);
    return new Params(kept);
  }

  /**
   * The cluster every run of {@code e} has, as far as a backend must know before the first run (to create hosts
   * for it): its name, first protocol, datacenters and partitions, and ports from {@code basePort}. The hosts are
   * placeholders, which the backend's {@code place} replaces.
   */
  public static ClusterConfig shape(Experiment e, int basePort) {
    Experiment.ClusterSpec spec = e.cluster();
    Topology topology = new Topology(spec.datacenters(), spec.partitions());
    List<ServerSpec> servers = new ArrayList<>();
    int i = 0;
    for (NodeId id : topology.allNodes()) {
      servers.add(new ServerSpec(id, LOOPBACK, basePort + i++));
    }
    return new ClusterConfig(e.source(), clusterName(e), e.protocols().get(0), Params.empty(), topology, servers,
        new StorageSpec(spec.engine(), spec.durability(), Path.of("data")), new EmulationSpec(null, Map.of()),
        Limits.defaults());
  }

  /** The cluster name of an experiment's runs: {@code bench-<experiment>} (at most 64 characters). */
  public static String clusterName(Experiment e) {
    return clusterName(e.name());
  }

  /** {@code bench-<experiment>} (at most 64 characters) for the experiment named {@code experiment}. */
  public static String clusterName(String experiment) {
    String n = "bench-" + experiment;
    return n.length() > 64 ? n.substring(0, 64) : n;
  }

  /** A round-trip time of {@code millis} between every two datacenters; null for 0 or one datacenter. */
  static long[][] uniform(Topology t, long millis) {
    if (millis <= 0 || t.datacenters() < 2) {
      return null;
    }
    long[][] rtt = new long[t.datacenters()][t.datacenters()];
    for (int a = 0; a < rtt.length; a++) {
      for (int b = 0; b < rtt.length; b++) {
        rtt[a][b] = a == b ? 0 : millis;
      }
    }
    return rtt;
  }

  /** Servers d_p with d + p odd run {@code millis} ahead; the others at offset 0. */
  static Map<NodeId, Long> clockSkew(Topology t, long millis) {
    Map<NodeId, Long> skew = new TreeMap<>();
    for (NodeId id : t.allNodes()) {
      if ((id.dc() + id.partition()) % 2 == 1 && millis != 0) {
        skew.put(id, millis);
      }
    }
    return skew;
  }

  /** {@code n} consecutive ports that were free on loopback a moment ago, below the ephemeral range. */
  static List<Integer> freePorts(int n) {
    int base = org.kvlab.runtime.LoopbackPorts.freeBlock(n);
    return java.util.stream.IntStream.range(base, base + n).boxed().toList();
  }

  /** Run-phase length for a timed experiment: warm-up plus measured time, in whole seconds. */
  static long runSeconds(Experiment e) {
    return e.warmup().plus(e.duration() == null ? Duration.ZERO : e.duration()).toSeconds();
  }
}
