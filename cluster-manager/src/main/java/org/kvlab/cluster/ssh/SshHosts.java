package org.kvlab.cluster.ssh;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;

/**
 * A hosts file ({@code kvlab bench --backend ssh EXPERIMENT --hosts hosts.yaml}, format in {@code docs/ssh.md}):
 * which hosts hold each datacenter's servers and which run its YCSB clients, the servers' first port, and the
 * {@code ssh:} section (the same as a cluster file's). Errors name file:line:column, the problem and the fix.
 *
 * <pre>
 * ssh: { user: alice, keyFile: ~/.ssh/id_ed25519, knownHosts: ~/.ssh/known_hosts }
 * basePort: 7100
 * datacenters:
 *   - { servers: [10.0.0.1, 10.0.0.2], clients: [10.0.0.3] }
 *   - { servers: [10.0.1.1] }                # clients on the servers' hosts
 * </pre>
 *
 * @param settings how to reach the hosts
 * @param basePort server {@code i} (datacenter-major order) listens on {@code basePort + i}
 * @param datacenters per datacenter: its server hosts (partition p on {@code servers[p % n]}) and client hosts
 *     (client c on {@code clients[c % n]})
 */
public record SshHosts(SshSettings settings, int basePort, List<Datacenter> datacenters) {
  public static final int DEFAULT_BASE_PORT = 7100;
  static final List<String> KEYS = List.of("ssh", "basePort", "datacenters");

  /** One datacenter's hosts. */
  public record Datacenter(List<String> servers, List<String> clients) {
    public Datacenter {
      servers = List.copyOf(servers);
      clients = clients == null || clients.isEmpty() ? servers : List.copyOf(clients);
    }
  }

  public SshHosts {
    datacenters = List.copyOf(datacenters);
  }

  /** Every host, servers' first, each once. */
  public List<String> allHosts() {
    Set<String> all = new LinkedHashSet<>();
    datacenters.forEach(d -> all.addAll(d.servers()));
    datacenters.forEach(d -> all.addAll(d.clients()));
    return List.copyOf(all);
  }

  public SshHosts withSettings(SshSettings s) {
    return new SshHosts(s, basePort, datacenters);
  }

  /**
   * The hosts of a cluster file that names real hosts (its {@code ssh:} section in {@code settings}): each
   * datacenter's server hosts, clients on them. For {@code kvlab ssh}, whose cluster is placed already.
   */
  public static SshHosts ofCluster(org.kvlab.config.ClusterConfig config, SshSettings settings) {
    List<Datacenter> dcs = new ArrayList<>();
    for (int d = 0; d < config.topology().datacenters(); d++) {
      final int dc = d;
      List<String> hs = config.servers().stream().filter(s -> s.id().dc() == dc).map(s -> s.host()).distinct().toList();
      dcs.add(new Datacenter(hs, hs));
    }
    return new SshHosts(settings, DEFAULT_BASE_PORT, dcs);
  }

  public static SshHosts load(Path file) throws ConfigException {
    return parse(YamlReader.readText(file, "hosts file"), file.toString());
  }

  public static SshHosts parse(String yaml, String source) throws ConfigException {
    YamlReader r = new YamlReader(source, "hosts file", "see docs/ssh.md#benchmarks-on-your-hosts.",
        "keep one set of hosts per file.");
    YamlNode root = r.readTree(YamlReader.stripBom(yaml));
    if (root.kind != Kind.MAPPING) {
      throw r.error(root, "a hosts file must be a mapping with 'ssh:' and 'datacenters:'",
          "see the example in docs/ssh.md#benchmarks-on-your-hosts.");
    }
    r.checkKeys(root, KEYS);
    SshSettings settings = SshSection.parse(yaml, source);
    int basePort = root.get("basePort") == null ? DEFAULT_BASE_PORT : r.intIn(root.get("basePort"), 1, 65000);
    YamlNode dcs = r.require(root, "datacenters");
    if (dcs.kind != Kind.LIST || dcs.items.isEmpty()) {
      throw r.error(dcs, "'datacenters' must be a list with one entry per datacenter",
          "write e.g.\ndatacenters:\n  - { servers: [10.0.0.1], clients: [10.0.0.3] }\n  - { servers: [10.0.1.1] }");
    }
    List<Datacenter> out = new ArrayList<>();
    for (YamlNode d : dcs.items) {
      YamlNode m = r.section(d, List.of("servers", "clients"));
      List<String> servers = hostList(r, r.require(m, "servers"));
      if (servers.isEmpty()) {
        throw r.error(m.get("servers"), "a datacenter needs at least one server host", "list its hosts, e.g. [10.0.0.1]");
      }
      List<String> clients = m.get("clients") == null ? List.of() : hostList(r, m.get("clients"));
      out.add(new Datacenter(servers, clients));
    }
    return new SshHosts(settings, basePort, out);
  }

  private static List<String> hostList(YamlReader r, YamlNode n) throws ConfigException {
    if (n.kind == Kind.STRING) {
      return List.of(n.text);
    }
    if (n.kind != Kind.LIST) {
      throw r.error(n, "must be a host or a list of hosts, but is " + n.kind.description, "write e.g. [10.0.0.1, 10.0.0.2]");
    }
    List<String> hosts = new ArrayList<>();
    for (YamlNode h : n.items) {
      hosts.add(r.text(h, "10.0.0.1"));
    }
    return hosts;
  }
}
