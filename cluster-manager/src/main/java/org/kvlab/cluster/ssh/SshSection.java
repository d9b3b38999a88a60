package org.kvlab.cluster.ssh;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.Params;
import org.kvlab.config.ConfigException;
import org.kvlab.config.UserText;
import org.kvlab.config.YamlNode;
import org.kvlab.config.YamlNode.Kind;
import org.kvlab.config.YamlReader;

/**
 * Reads the {@code ssh:} section of a cluster file (format: {@code docs/ssh.md}) into {@link SshSettings},
 * with errors at file:line:column naming the problem and the fix. The rest of the file is read by
 * {@link org.kvlab.config.ClusterConfig}.
 */
public final class SshSection {
  static final List<String> KEYS = List.of("user", "keyFile", "agent", "knownHosts", "port", "dir", "java",
      "jvmOptions", "connectTimeout", "addresses");

  private SshSection() {}

  /** The ssh section of {@code clusterFile}. */
  public static SshSettings load(Path clusterFile) throws ConfigException {
    return parse(YamlReader.readText(clusterFile, "cluster file"), clusterFile.toString());
  }

  public static SshSettings parse(String yaml, String source) throws ConfigException {
    YamlReader r = new YamlReader(source, "cluster file", "see docs/cluster-file.md.",
        "keep one cluster per file.");
    YamlNode root = r.readTree(YamlReader.stripBom(yaml));
    if (root.kind != Kind.MAPPING) {
      throw r.error(root, "a cluster file must be a mapping of keys", "start from an example in examples/.");
    }
    YamlNode value = root.get("ssh");
    if (value == null || value.kind == Kind.NULL) {
      throw new ConfigException(source, value == null ? 0 : value.keyLine, value == null ? 0 : value.keyColumn,
          "the cluster file has no ssh section, so kvlab does not know how to reach its hosts",
          "add one, e.g. 'ssh: { user: alice, keyFile: ~/.ssh/id_ed25519 }' (see docs/ssh.md)");
    }
    for (Map.Entry<String, YamlNode> e : value.kind == Kind.MAPPING ? value.entries.entrySet()
        : Map.<String, YamlNode>of().entrySet()) {
      String k = e.getKey().toLowerCase(java.util.Locale.ROOT);
      if (k.contains("password") || k.contains("passphrase")) {
        throw r.errorAtKey(e.getValue(), "passwords are not accepted in cluster files",
            "remove it, and use 'keyFile:' (a key without passphrase) or 'agent: true' (ssh-add your key)");
      }
    }
    YamlNode ssh = r.section(value, KEYS);
    String user = r.text(r.require(ssh, "user"), "user: alice");
    YamlNode keyNode = ssh.get("keyFile");
    YamlNode agentNode = ssh.get("agent");
    boolean agent = false;
    if (agentNode != null) {
      String a = r.text(agentNode, "agent: true");
      if (!a.equals("true") && !a.equals("false")) {
        throw r.error(agentNode, UserText.quoted(a) + " is not true or false", "write 'agent: true' to use the SSH agent.");
      }
      agent = a.equals("true");
    }
    if (agent && keyNode != null) {
      throw r.errorAtKey(keyNode, "both 'keyFile' and 'agent: true' are given", "keep one of them.");
    }
    if (!agent && keyNode == null) {
      throw r.error(ssh, "neither 'keyFile' nor 'agent: true' is given, and passwords are not accepted",
          "add 'keyFile: ~/.ssh/id_ed25519' (a key without passphrase) or 'agent: true' (keys loaded with ssh-add).");
    }
    Path keyFile = keyNode == null ? null : path(r.text(keyNode, "keyFile: ~/.ssh/id_ed25519"));
    YamlNode knownNode = ssh.get("knownHosts");
    Path knownHosts = knownNode == null ? path("~/.ssh/known_hosts") : path(r.text(knownNode, "knownHosts: ~/.ssh/known_hosts"));
    int port = ssh.get("port") == null ? SshSettings.DEFAULT_PORT : r.intIn(ssh.get("port"), 1, 65535);
    String dir = ssh.get("dir") == null ? SshSettings.DEFAULT_REMOTE_DIR : r.text(ssh.get("dir"), "dir: kvlab");
    String java = ssh.get("java") == null ? "java" : r.text(ssh.get("java"), "java: /usr/lib/jvm/java-17-openjdk-amd64/bin/java");
    String jvmOptions = ssh.get("jvmOptions") == null ? SshSettings.DEFAULT_JVM_OPTIONS
        : r.text(ssh.get("jvmOptions"), "jvmOptions: -Xmx1g");
    Duration connect = SshSettings.DEFAULT_CONNECT_TIMEOUT;
    YamlNode ct = ssh.get("connectTimeout");
    if (ct != null) {
      String t = r.text(ct, "connectTimeout: 10s");
      try {
        connect = Params.parseDuration(t, "connectTimeout");
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw r.error(ct, UserText.quoted(t) + " is not a duration", "write e.g. 10s or 500ms.");
      }
      if (connect.isNegative() || connect.isZero() || connect.compareTo(Duration.ofMinutes(10)) > 0) {
        throw r.error(ct, UserText.quoted(t) + " is out of range", "use a time from 1ms to 10m, e.g. 10s.");
      }
    }
    Map<String, String> addresses = new LinkedHashMap<>();
    YamlNode addr = ssh.get("addresses");
    if (addr != null && addr.kind != Kind.NULL) {
      if (addr.kind != Kind.MAPPING) {
        throw r.error(addr, "must be a mapping of server hosts to SSH addresses, but is " + addr.kind.description,
            "write e.g. 'addresses: { 10.0.0.5: 203.0.113.7 }'.");
      }
      for (Map.Entry<String, YamlNode> e : addr.entries.entrySet()) {
        addresses.put(e.getKey(), r.text(e.getValue(), e.getKey() + ": 203.0.113.7"));
      }
    }
    return new SshSettings(user, keyFile, agent, null, knownHosts, SshSettings.HostKeyPolicy.STRICT, port, dir, java,
        jvmOptions, connect, SshSettings.DEFAULT_COMMAND_TIMEOUT, addresses, null);
  }

  private static Path path(String p) {
    String home = System.getProperty("user.home");
    if (p.equals("~")) {
      return Path.of(home);
    }
    if (p.startsWith("~/")) {
      return Path.of(home).resolve(p.substring(2));
    }
    return Path.of(p).toAbsolutePath().normalize();
  }
}
