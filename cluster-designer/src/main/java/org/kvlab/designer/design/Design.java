package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kvlab.api.NodeId;

/**
 * A cluster design: what a cluster file says (docs/cluster-file.md), held as the text the user wrote so that
 * a file that is opened and saved again stays the same, plus where each datacenter is drawn on the canvas.
 * Values are strings exactly as they appear in the file; {@link DesignValidator} checks them with kvlab's own
 * loader. Mutable, not thread-safe: the Design tab edits it on the JavaFX thread; {@link #copy()} gives the
 * snapshots undo/redo keep.
 */
public final class Design {
  /**
   * One datacenter on the canvas. Its position is saved in a comment line at the end of the cluster file
   * ({@code # kvlab-designer: layout ...}, see {@link DesignYaml}), which kvlab's loader ignores.
   */
  public static final class Dc {
    public double x;
    public double y;

    public Dc(double x, double y) {
      this.x = x;
      this.y = y;
    }
  }

  /** One {@code servers:} entry, as written ({@code port} is text so that a wrong value can be shown). */
  public static final class ServerEntry {
    public String id;
    public String host;
    public String port;

    public ServerEntry(String id, String host, String port) {
      this.id = id;
      this.host = host;
      this.port = port;
    }

    ServerEntry copy() {
      return new ServerEntry(id, host, port);
    }

    /** The id as a NodeId, if it is one. */
    public Optional<NodeId> nodeId() {
      try {
        return Optional.of(NodeId.parse(id.strip()));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
  }

  public String name = "";
  public String protocol = "";
  /** Protocol parameters in file order. */
  public final LinkedHashMap<String, String> params = new LinkedHashMap<>();
  public final List<Dc> dcs = new ArrayList<>();
  public int partitions = 1;
  public int replicas = 1;
  /** Whether the file writes {@code replicas:} (kept when it says 1). */
  public boolean replicasWritten;
  /** True: {@code local: { host, basePort }} generates the servers; false: the explicit {@code servers:} list. */
  public boolean local;
  /** {@code local.host}, or null when not written (127.0.0.1). */
  public String localHost;
  public String localBasePort = "7100";
  public final List<ServerEntry> servers = new ArrayList<>();
  public final LinkedHashMap<String, String> storage = new LinkedHashMap<>();
  /** {@code emulation.rtt}, rows of durations as written; null: none. */
  public String[][] rtt;
  public final LinkedHashMap<String, String> skew = new LinkedHashMap<>();
  public final LinkedHashMap<String, String> limits = new LinkedHashMap<>();
  public final LinkedHashMap<String, String> security = new LinkedHashMap<>();
  /** Top-level sections the designer does not edit ({@code ssh}, {@code ec2}, unknown keys): key to text as written. */
  public final LinkedHashMap<String, String> opaque = new LinkedHashMap<>();

  /** A new design: one datacenter with one server on 127.0.0.1:7100, protocol eventual. */
  public static Design empty() {
    Design d = new Design();
    d.name = "my-cluster";
    d.protocol = "eventual";
    d.dcs.add(new Dc(40, 40));
    d.servers.add(new ServerEntry("0_0", "127.0.0.1", "7100"));
    d.storage.put("engine", "je");
    d.storage.put("durability", "none");
    d.storage.put("dir", ".kvlab/data");
    return d;
  }

  public int datacenters() {
    return dcs.size();
  }

  /** Server id text as the file prints it: replica 0 without its suffix. */
  public static String idText(int dc, int partition, int replica) {
    return dc + "_" + partition + (replica == 0 ? "" : "_" + replica);
  }

  /** The {@code servers:} entry of a server, or null if none (or the design uses {@code local}). */
  public ServerEntry entry(NodeId id) {
    for (ServerEntry e : servers) {
      if (e.nodeId().filter(id::equals).isPresent()) {
        return e;
      }
    }
    return null;
  }

  /** Host a server listens on (as written, or as {@code local} generates it). */
  public String hostOf(NodeId id) {
    if (local) {
      return localHost == null ? "127.0.0.1" : localHost;
    }
    ServerEntry e = entry(id);
    return e == null ? "" : e.host;
  }

  /** Port text of a server (as written, or as {@code local} generates it; "?" if basePort is no number). */
  public String portOf(NodeId id) {
    if (local) {
      try {
        return String.valueOf(Integer.parseInt(localBasePort.strip()) + index(id));
      } catch (NumberFormatException e) {
        return "?";
      }
    }
    ServerEntry e = entry(id);
    return e == null ? "" : e.port;
  }

  private int index(NodeId id) {
    return (id.dc() * partitions + id.partition()) * replicas + id.replica();
  }

  /** Turns {@code local} into the explicit list it generates, so single servers can be edited. */
  public void materializeServers() {
    if (!local) {
      return;
    }
    List<ServerEntry> list = new ArrayList<>();
    for (int d = 0; d < datacenters(); d++) {
      for (int p = 0; p < partitions; p++) {
        for (int r = 0; r < replicas; r++) {
          NodeId id = new NodeId(d, p, r);
          list.add(new ServerEntry(idText(d, p, r), hostOf(id), portOf(id)));
        }
      }
    }
    local = false;
    servers.clear();
    servers.addAll(list);
  }

  /** The largest port number written (or generated), or 7099 if none. */
  int maxPort() {
    int max = 7099;
    for (int d = 0; d < datacenters(); d++) {
      for (int p = 0; p < partitions; p++) {
        for (int r = 0; r < replicas; r++) {
          try {
            max = Math.max(max, Integer.parseInt(portOf(new NodeId(d, p, r)).strip()));
          } catch (NumberFormatException e) {
            // not a number: validation reports it
          }
        }
      }
    }
    for (ServerEntry e : servers) {
      try {
        max = Math.max(max, Integer.parseInt(e.port.strip()));
      } catch (NumberFormatException ex) {
        // idem
      }
    }
    return max;
  }

  /**
   * The base port when the listed servers are exactly what {@code local} would generate (one host, server i of
   * the datacenter, partition, replica order on base + i); else -1. Shape changes keep such a list dense.
   */
  int denseBase() {
    if (local || servers.size() != datacenters() * partitions * replicas) {
      return -1;
    }
    ServerEntry first = entry(new NodeId(0, 0, 0));
    if (first == null) {
      return -1;
    }
    try {
      int base = Integer.parseInt(first.port.strip());
      for (ServerEntry e : servers) {
        NodeId id = e.nodeId().orElse(null);
        if (id == null || !e.host.equalsIgnoreCase(first.host) || Integer.parseInt(e.port.strip()) != base + index(id)) {
          return -1;
        }
      }
      return base;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Puts every listed server on base + its index (after a shape change of a dense list). */
  private void tidy(int base) {
    if (base < 0 || (long) base + servers.size() - 1 > 65535) {
      return;
    }
    for (ServerEntry e : servers) {
      e.nodeId().ifPresent(id -> e.port = String.valueOf(base + index(id)));
    }
  }

  /** A host for new servers of a datacenter: that of its first server, else the first server's, else loopback. */
  private String hostFor(int dc) {
    for (ServerEntry e : servers) {
      if (e.nodeId().map(n -> n.dc() == dc).orElse(false)) {
        return e.host;
      }
    }
    return servers.isEmpty() ? "127.0.0.1" : servers.get(0).host;
  }

  /** Adds a datacenter with the same partitions and replicas as the others; returns its number. */
  public int addDatacenter(double x, double y) {
    int base = denseBase();
    int d = datacenters();
    dcs.add(new Dc(x, y));
    if (!local) {
      int port = maxPort();
      String host = hostFor(d > 0 ? d - 1 : 0);
      for (int p = 0; p < partitions; p++) {
        for (int r = 0; r < replicas; r++) {
          servers.add(new ServerEntry(idText(d, p, r), host, String.valueOf(++port)));
        }
      }
    }
    if (rtt != null) {
      String[][] n = new String[d + 1][d + 1];
      for (int a = 0; a <= d; a++) {
        for (int b = 0; b <= d; b++) {
          n[a][b] = a < d && b < d ? rtt[a][b] : "0";
        }
      }
      rtt = n;
    }
    tidy(base);
    return d;
  }

  /** Adds a partition to every datacenter (the topology is datacenters x partitions). */
  public void addPartition() {
    int base = denseBase();
    int p = partitions++;
    if (!local) {
      int port = maxPort();
      for (int d = 0; d < datacenters(); d++) {
        for (int r = 0; r < replicas; r++) {
          servers.add(new ServerEntry(idText(d, p, r), hostFor(d), String.valueOf(++port)));
        }
      }
    }
    tidy(base);
  }

  /** Adds a replica to every partition of every datacenter. */
  public void addReplica() {
    int base = denseBase();
    int r = replicas++;
    replicasWritten = true;
    if (!local) {
      int port = maxPort();
      for (int d = 0; d < datacenters(); d++) {
        for (int p = 0; p < partitions; p++) {
          servers.add(new ServerEntry(idText(d, p, r), hostFor(d), String.valueOf(++port)));
        }
      }
    }
    tidy(base);
  }

  /** Removes datacenter {@code dc}; the ones after it are renumbered (server ids, RTT rows, skews). */
  public void removeDatacenter(int dc) {
    if (datacenters() <= 1) {
      throw new IllegalStateException("a cluster needs at least one datacenter");
    }
    int base = denseBase();
    dcs.remove(dc);
    renumber(id -> id.dc() == dc ? null : id.dc() > dc ? new NodeId(id.dc() - 1, id.partition(), id.replica()) : id);
    if (rtt != null) {
      int n = rtt.length - 1;
      String[][] m = new String[n][n];
      for (int a = 0, sa = 0; a < n; a++, sa++) {
        if (sa == dc) {
          sa++;
        }
        for (int b = 0, sb = 0; b < n; b++, sb++) {
          if (sb == dc) {
            sb++;
          }
          m[a][b] = rtt[sa][sb];
        }
      }
      rtt = m;
    }
    tidy(base);
  }

  /** Removes partition {@code p} from every datacenter; later partitions are renumbered. */
  public void removePartition(int p) {
    if (partitions <= 1) {
      throw new IllegalStateException("a cluster needs at least one partition");
    }
    int base = denseBase();
    partitions--;
    renumber(id -> id.partition() == p ? null
        : id.partition() > p ? new NodeId(id.dc(), id.partition() - 1, id.replica()) : id);
    tidy(base);
  }

  /** Removes replica {@code r} from every partition; later replicas are renumbered. */
  public void removeReplica(int r) {
    if (replicas <= 1) {
      throw new IllegalStateException("a partition needs at least one replica");
    }
    int base = denseBase();
    replicas--;
    renumber(id -> id.replica() == r ? null
        : id.replica() > r ? new NodeId(id.dc(), id.partition(), id.replica() - 1) : id);
    tidy(base);
  }

  private void renumber(java.util.function.UnaryOperator<NodeId> map) {
    servers.removeIf(e -> e.nodeId().map(id -> map.apply(id) == null).orElse(false));
    for (ServerEntry e : servers) {
      e.nodeId().map(map).ifPresent(n -> {
        if (!n.equals(NodeId.parse(e.id.strip()))) {
          e.id = idText(n.dc(), n.partition(), n.replica());
        }
      });
    }
    LinkedHashMap<String, String> s = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : skew.entrySet()) {
      NodeId id;
      try {
        id = NodeId.parse(e.getKey().strip());
      } catch (IllegalArgumentException ex) {
        s.put(e.getKey(), e.getValue());
        continue;
      }
      NodeId n = map.apply(id);
      if (n != null) {
        s.put(n.equals(id) ? e.getKey() : idText(n.dc(), n.partition(), n.replica()), e.getValue());
      }
    }
    skew.clear();
    skew.putAll(s);
  }

  /** Sets the RTT between two datacenters (both directions; the matrix is created with zeros if absent). */
  public void setRtt(int a, int b, String value) {
    if (rtt == null) {
      rtt = zeros(datacenters());
    }
    rtt[a][b] = value;
    rtt[b][a] = value;
  }

  static String[][] zeros(int n) {
    String[][] m = new String[n][n];
    for (String[] row : m) {
      java.util.Arrays.fill(row, "0");
    }
    return m;
  }

  /** A deep copy (for undo/redo). */
  public Design copy() {
    Design c = new Design();
    c.name = name;
    c.protocol = protocol;
    c.params.putAll(params);
    for (Dc dc : dcs) {
      c.dcs.add(new Dc(dc.x, dc.y));
    }
    c.partitions = partitions;
    c.replicas = replicas;
    c.replicasWritten = replicasWritten;
    c.local = local;
    c.localHost = localHost;
    c.localBasePort = localBasePort;
    servers.forEach(s -> c.servers.add(s.copy()));
    c.storage.putAll(storage);
    if (rtt != null) {
      c.rtt = new String[rtt.length][];
      for (int i = 0; i < rtt.length; i++) {
        c.rtt[i] = rtt[i].clone();
      }
    }
    c.skew.putAll(skew);
    c.limits.putAll(limits);
    c.security.putAll(security);
    c.opaque.putAll(opaque);
    return c;
  }
}
