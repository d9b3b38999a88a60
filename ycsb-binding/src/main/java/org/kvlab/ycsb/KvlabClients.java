package org.kvlab.ycsb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.kvlab.api.NodeId;
import org.kvlab.api.OperationException;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.api.ReadOnlyTransactions;
import org.kvlab.api.Session;
import org.kvlab.api.Transactions;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ConfigException;
import org.kvlab.runtime.ClientRuntime;

/**
 * The binding's properties and the one {@link ClientRuntime} a YCSB JVM shares between its threads
 * (reference counted: opened by the first {@link #acquire}, closed by the last {@link Shared#release}).
 */
final class KvlabClients {
  static final String CLUSTER = "kvlab.cluster";
  static final String DC = "kvlab.dc";
  static final String PROTOCOL = "kvlab.protocol";
  static final String TIMEOUT = "kvlab.timeout";
  static final String CLIENT_THREADS = "kvlab.clientthreads";
  /** A history file: every operation of this JVM's sessions, written when the last one closes (docs/ycsb.md). */
  static final String HISTORY = "kvlab.history";

  private static final Map<Target, Shared> SHARED = new HashMap<>(); // guarded by KvlabClients.class

  private KvlabClients() {}

  /** A binding property is missing or wrong, the cluster file is invalid, or a server cannot be reached. */
  static final class SetupException extends Exception {
    SetupException(String message) {
      super(message);
    }
  }

  /** What the properties ask for, validated, before anything connects. */
  record Target(Path clusterFile, ClusterConfig config, Protocol protocol, int dc, Duration timeout, int clientThreads,
      Path history) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Target t && t.clusterFile.equals(clusterFile) && t.protocol.name().equals(protocol.name())
          && t.clientThreads == clientThreads;
    }

    @Override
    public int hashCode() {
      return clusterFile.hashCode() * 31 + protocol.name().hashCode();
    }

    boolean offersReadOnlyTx() {
      return protocol.newClient() instanceof ReadOnlyTransactions;
    }

    /** Multi-key read-write transactions ({@link Transactions}, e.g. camu). */
    boolean offersTransactions() {
      return protocol.newClient() instanceof Transactions;
    }

    /** Installed protocols whose clients offer multi-key transactions, for error messages. */
    static String protocolsWithTransactions() {
      String names = Protocols.all().stream().filter(p -> p.newClient() instanceof Transactions)
          .map(Protocol::name).collect(Collectors.joining(", "));
      return names.isEmpty() ? "(none installed)" : names;
    }

    /** Installed protocols whose clients offer read-only transactions, for error messages. */
    static String protocolsWithReadOnlyTx() {
      String names = Protocols.all().stream().filter(p -> p.newClient() instanceof ReadOnlyTransactions)
          .map(Protocol::name).collect(Collectors.joining(", "));
      return names.isEmpty() ? "(none installed)" : names;
    }
  }

  /** Reads and checks the binding's properties and the cluster file they name. */
  static Target target(Properties props) throws SetupException {
    String file = props.getProperty(CLUSTER);
    if (file == null || file.isBlank()) {
      throw new SetupException("property " + CLUSTER + " is not set. Fix: pass -p " + CLUSTER + "=<cluster.yaml> "
          + "(the cluster file the servers were started with, e.g. examples/eventual-1.yaml)");
    }
    Path path = Path.of(file.trim()).toAbsolutePath().normalize();
    if (!Files.isRegularFile(path)) {
      throw new SetupException("cluster file " + path + " (" + CLUSTER + ") does not exist. Fix: check the path; it "
          + "is resolved against the YCSB client's working directory " + Path.of("").toAbsolutePath());
    }
    ClusterConfig config;
    try {
      config = ClusterConfig.load(path);
    } catch (ConfigException e) {
      throw new SetupException("invalid cluster file (" + CLUSTER + "): " + e.getMessage());
    }
    String protocolName = props.getProperty(PROTOCOL, config.protocol()).trim();
    Protocol protocol;
    try {
      protocol = Protocols.byName(protocolName);
    } catch (IllegalArgumentException e) {
      throw new SetupException((props.containsKey(PROTOCOL) ? PROTOCOL : path + " (protocol:)") + ": "
          + e.getMessage() + ". Fix: name an installed protocol, or put the protocol's jar on the YCSB class path");
    }
    int datacenters = config.topology().datacenters();
    String dcText = props.getProperty(DC, "0").trim();
    int dc = intOrMinusOne(dcText);
    if (dc < 0 || dc >= datacenters) {
      throw new SetupException(DC + "=" + dcText + " is not a datacenter of cluster '" + config.name() + "' (" + path
          + " has " + datacenters + "). Fix: use a number from 0 to " + (datacenters - 1));
    }
    Duration timeout;
    try {
      timeout = Params.parseDuration(props.getProperty(TIMEOUT, "10s"), TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new SetupException(e.getMessage());
    }
    if (timeout.isZero() || timeout.isNegative()) {
      throw new SetupException(TIMEOUT + " must be positive, e.g. 10s");
    }
    String threadsText = props.getProperty(CLIENT_THREADS, "0").trim();
    int threads = intOrMinusOne(threadsText);
    if (threads < 0 || threads > 256) {
      throw new SetupException(CLIENT_THREADS + "=" + threadsText + " is not a thread count. Fix: use 1 to 256, or 0 "
          + "for the runtime's default (one per two cores, 1 to 4)");
    }
    String history = props.getProperty(HISTORY);
    Path historyFile = null;
    if (history != null) {
      try {
        historyFile = Path.of(history.trim()).toAbsolutePath().normalize();
      } catch (java.nio.file.InvalidPathException e) {
        throw new SetupException(HISTORY + "=" + history + " is not a file name. Fix: name a file to write, e.g. "
            + HISTORY + "=history.jsonl");
      }
      if (history.isBlank() || Files.isDirectory(historyFile)) {
        throw new SetupException(HISTORY + "=" + history + " is not a file to write. Fix: name a file, e.g. "
            + HISTORY + "=history.jsonl");
      }
    }
    return new Target(path, config, protocol, dc, timeout, threads, historyFile);
  }

  private static int intOrMinusOne(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Takes a reference on the runtime shared by every thread of this JVM that targets the same cluster. */
  static synchronized Shared acquire(Target target) {
    Shared s = SHARED.get(target);
    if (s == null) {
      ClientRuntime runtime = target.clientThreads() > 0
          ? new ClientRuntime(target.config(), target.protocol(), target.clientThreads())
          : new ClientRuntime(target.config(), target.protocol());
      s = new Shared(target, runtime);
      if (target.history() != null) {
        runtime.recordHistory(s.recorder);
      }
      SHARED.put(target, s);
    }
    s.references++;
    return s;
  }

  /** One client runtime and its reference count. */
  static final class Shared {
    final Target target;
    final ClientRuntime runtime;
    private final List<String> probeKeys;
    private final org.kvlab.history.History.Recorder recorder = new org.kvlab.history.History.Recorder();
    private int references; // guarded by KvlabClients.class

    private Shared(Target target, ClientRuntime runtime) {
      this.target = target;
      this.runtime = runtime;
      this.probeKeys = probeKeys(target.config());
    }

    /**
     * Opens a session and returns only once it has a working connection to every server of its
     * datacenter (one GET per partition): the session's requests are known to reach the servers.
     */
    Session openProbedSession() throws SetupException {
      Session session = runtime.openSession(target.dc(), target.timeout());
      for (int p = 0; p < probeKeys.size(); p++) {
        try {
          session.get(probeKeys.get(p));
        } catch (OperationException e) {
          session.close();
          ServerSpec server = target.config().server(new NodeId(target.dc(), p));
          throw new SetupException("cannot use server " + server.id() + " at " + server.host() + ":" + server.port()
              + " (cluster file " + target.clusterFile() + ", datacenter " + target.dc() + "): " + e.getMessage()
              + ". Fix: start the cluster (./kvlab local up " + target.clusterFile() + ") or correct the servers' "
              + "addresses in the cluster file");
        }
      }
      return session;
    }

    /**
     * Drops a reference; the last one closes the runtime and writes the history ({@code kvlab.history}), if asked.
     *
     * @throws java.io.UncheckedIOException if the history cannot be written
     */
    void release() {
      boolean close;
      synchronized (KvlabClients.class) {
        close = --references == 0;
        if (close) {
          SHARED.remove(target);
        }
      }
      if (close) {
        runtime.close();
        if (target.history() != null) {
          try {
            org.kvlab.history.HistoryFiles.write(recorder.build(), target.history());
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write the history " + target.history() + " (" + HISTORY
                + "): " + e.getMessage() + ". Fix: name a file in a writable directory", e);
          }
        }
      }
    }
  }

  /** For each partition, in order, a key that the cluster places on it. */
  private static List<String> probeKeys(ClusterConfig config) {
    String[] keys = new String[config.topology().partitions()];
    int found = 0;
    for (int i = 0; found < keys.length; i++) {
      String key = "kvlab-ycsb-probe-" + i;
      int p = config.topology().partitionOf(key);
      if (keys[p] == null) {
        keys[p] = key;
        found++;
      }
    }
    return List.of(keys);
  }
}
