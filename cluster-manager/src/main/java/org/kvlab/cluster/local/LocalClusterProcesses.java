package org.kvlab.cluster.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;
import org.kvlab.config.UserText;
import org.kvlab.runtime.ControlClient;
import org.kvlab.wire.Status;

/**
 * A cluster running on this machine as child JVMs ({@code kvlab server --config F --node ...}), one per
 * server or all in one. Its state (the cluster file's path, a pid file and a log per server) lives in
 * {@code .kvlab/local/<cluster>/} under the working directory, so {@code kvlab local status|down} find
 * clusters started by {@code local up} and by {@code bench} alike.
 */
public final class LocalClusterProcesses implements AutoCloseable {
  public static final Path STATE = Path.of(".kvlab", "local");
  public static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration STOP_GRACE = Duration.ofSeconds(15);
  public static final String DEFAULT_JVM_OPTIONS = org.kvlab.cluster.ServerJvm.DEFAULT_OPTIONS;
  /** The suffix of the file beside each pid file that records when the process started (an Instant). */
  static final String STARTED = ".started";
  /** How far a process's start time may be from the recorded one (both are read from the platform's clock ticks). */
  static final Duration START_TOLERANCE = Duration.ofSeconds(1);
  /** How many earlier logs of each server {@code start} keeps ({@code 0_1.log.1} is the previous one). */
  public static final int LOGS_KEPT = 3;
  /** How often {@code stop} asks a server that has not answered yet (it may still be starting). */
  static final Duration STOP_RETRY = Duration.ofMillis(200);

  private final Path file;
  private final ClusterConfig config;
  private final Path dir;
  private final List<String> names;
  private final List<Process> processes;

  private LocalClusterProcesses(Path file, ClusterConfig config, Path dir, List<String> names, List<Process> processes) {
    this.file = file;
    this.config = config;
    this.dir = dir;
    this.names = names;
    this.processes = processes;
  }

  /** A cluster could not be started, or did not come up. */
  public static final class LaunchException extends Exception {
    private final boolean timedOut;

    LaunchException(String message, boolean timedOut) {
      super(message);
      this.timedOut = timedOut;
    }

    /** True if the servers were running but not all connected when the wait ended. */
    public boolean timedOut() {
      return timedOut;
    }
  }

  public static Path stateDir(String cluster) {
    return STATE.resolve(cluster);
  }

  /**
   * What answers on one server's address: its status, or empty and why not: {@code refusal} is null if
   * nothing answers, else the reason the answering process is not that server of this cluster (another
   * cluster, another secret) with the fix.
   */
  public record Probe(ServerSpec server, Optional<Status> status, String refusal) {}

  /** Asks server {@code s} of {@code config} for its status (authenticated with the cluster's secret). */
  public static Probe probe(ClusterConfig config, ServerSpec s) {
    try {
      return new Probe(s, Optional.of(ControlClient.status(config, s, CONTROL_TIMEOUT)), null);
    } catch (ControlClient.RefusedException e) {
      return new Probe(s, Optional.empty(), e.getMessage());
    } catch (IOException e) {
      return new Probe(s, Optional.empty(), null);
    }
  }

  public static List<Probe> probes(ClusterConfig config) {
    return config.servers().stream().map(s -> probe(config, s)).toList();
  }

  /** The status of one server, or empty if it does not answer (or is not that server of this cluster). */
  public static Optional<Status> status(ClusterConfig config, ServerSpec s) {
    return probe(config, s).status();
  }

  public static List<Optional<Status>> statuses(ClusterConfig config) {
    return probes(config).stream().map(Probe::status).toList();
  }

  /** True if every server answers and is connected to every peer. */
  public static boolean allConnected(List<Optional<Status>> statuses) {
    return statuses.stream().allMatch(s -> s.isPresent() && s.get().getPeersConnected() == s.get().getPeersExpected());
  }

  /**
   * Starts every server of {@code file} (whose loaded form is {@code config}) in child JVMs of this
   * machine, with this JVM's class path. Fails if a server of a cluster already answers on one of the
   * addresses or a port is taken. Does not wait: see {@link #awaitConnected}.
   */
  public static LocalClusterProcesses start(Path file, ClusterConfig config, boolean singleJvm, String jvmOptions)
      throws LaunchException, IOException {
    ClusterSecret.SecretException badSecret = null;
    try {
      config.security().loadOrCreate(); // the cluster's secret: servers and tools prove it to each other
    } catch (ClusterSecret.SecretException e) {
      badSecret = e;
    }
    for (ServerSpec s : config.servers()) {
      Probe p = probe(config, s);
      if (p.status().isPresent()) {
        throw new LaunchException("server " + s.id() + " of cluster " + config.name() + " already answers on "
            + s.host() + ":" + s.port() + ". Fix: ./kvlab local down " + file, false);
      }
      if (p.refusal() != null) {
        throw new LaunchException("cannot start server " + s.id() + ": " + p.refusal(), false);
      }
      checkPortFree(s, file);
    }
    if (badSecret != null) {
      throw new LaunchException(badSecret.getMessage(), false);
    }
    Path dir = stateDir(config.name());
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("config"), file.toAbsolutePath().normalize().toString());
    List<List<ServerSpec>> groups = singleJvm ? List.of(config.servers())
        : config.servers().stream().map(List::of).toList();
    List<String> names = new ArrayList<>();
    List<Process> processes = new ArrayList<>();
    LocalClusterProcesses cluster = new LocalClusterProcesses(file, config, dir, names, processes);
    try {
      for (List<ServerSpec> group : groups) {
        String name = singleJvm ? "all" : group.get(0).id().toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(javaCommand());
        cmd.addAll(splitOptions(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.kvlab.cli.Main", "server",
            "--config", file.toAbsolutePath().toString(),
            "--secret-file", config.security().secretFile().toString(), // the path, never the secret
            "--node",
            String.join(",", group.stream().map(s -> s.id().toString()).toList())));
        Path log = dir.resolve(name + ".log");
        rotate(log, LOGS_KEPT);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        names.add(name);
        Optional<java.time.Instant> startedAt = p.toHandle().info().startInstant();
        for (ServerSpec s : group) {
          Files.writeString(dir.resolve(s.id() + ".pid"), Long.toString(p.pid()));
          if (startedAt.isPresent()) {
            Files.writeString(dir.resolve(s.id() + STARTED), startedAt.get().toString());
          }
          Files.writeString(dir.resolve(s.id() + ".log.name"), log.getFileName().toString());
        }
      }
    } catch (IOException e) {
      cluster.stopStarted(Duration.ZERO, line -> { });
      throw e;
    }
    return cluster;
  }

  /** The java executable of this JVM. */
  public static String javaCommand() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** JVM options written on one line, split at white space. */
  public static List<String> splitOptions(String options) {
    return options == null || options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
  }

  /**
   * Waits until every server answers and is connected to all its peers; returns their statuses. Fails
   * at once, with the end of its log, if a server process exits, and after {@code wait} otherwise.
   */
  public List<Optional<Status>> awaitConnected(Duration wait) throws LaunchException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      for (int i = 0; i < processes.size(); i++) {
        if (!processes.get(i).isAlive()) {
          Path log = dir.resolve(names.get(i) + ".log");
          throw new LaunchException("server process " + names.get(i) + " exited with code "
              + processes.get(i).exitValue() + ":\n" + tail(log, 15) + "\n(log: " + log + ")", false);
        }
      }
      List<Probe> probes = probes(config);
      for (Probe p : probes) {
        if (p.refusal() != null) { // a refusal does not pass with time: another cluster name, secret or protocol
          throw new LaunchException("server " + p.server().id() + " refuses this cluster's handshake: " + p.refusal(),
              false);
        }
      }
      List<Optional<Status>> all = probes.stream().map(Probe::status).toList();
      if (allConnected(all)) {
        return all;
      }
      if (System.nanoTime() >= deadline) {
        throw new LaunchException("cluster " + config.name() + " did not come up within " + wait.toSeconds()
            + " s; see the logs in " + dir, true);
      }
      Thread.sleep(100);
    }
  }

  public ClusterConfig config() {
    return config;
  }

  public Path file() {
    return file;
  }

  /** Where the pid files and server logs are. */
  public Path dir() {
    return dir;
  }

  public List<Process> processes() {
    return List.copyOf(processes);
  }

  /** How long a stop waits for processes it killed (SIGKILL) to be gone. */
  static final Duration KILL_WAIT = Duration.ofSeconds(10);

  /** Waits, until one deadline {@code wait} from now, for each of {@code processes} to have exited. */
  static void awaitExit(List<ProcessHandle> processes, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    for (ProcessHandle h : processes) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        h.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        return; // still there after a SIGKILL: nothing more to do
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Kills every server process at once (SIGKILL), without a graceful shutdown. */
  public void destroyForcibly() {
    processes.forEach(Process::destroyForcibly);
  }

  /** Stops the cluster gracefully: see {@link #stop(ClusterConfig, Duration)}. */
  @Override
  public void close() {
    stop(config, STOP_GRACE);
  }

  /**
   * Stops the server processes this object started (and no other process, whatever listens on the
   * cluster's addresses): asks each of their servers to shut down, retrying while a server is still starting,
   * waits for all of them together up to {@code grace}, kills those left and removes the pid files of those that are
   * gone. A server that refuses the request (its handshake fails: another cluster name, secret or protocol) is
   * stopped by its PID all the same: this object started it. For a {@code local up} that failed or was interrupted.
   * Returns how many servers answered the request; {@link #stillRunning} tells whether any process outlived it.
   */
  public int stopStarted(Duration grace, Consumer<String> log) {
    Map<ServerSpec, ProcessHandle> own = new LinkedHashMap<>();
    for (int i = 0; i < processes.size(); i++) {
      for (ServerSpec s : config.servers()) {
        if (names.get(i).equals("all") || names.get(i).equals(s.id().toString())) {
          own.put(s, processes.get(i).toHandle());
        }
      }
    }
    int answered = stopServers(config, new ArrayList<>(own.keySet()), own, Set.copyOf(own.keySet()), grace, log,
        refusal -> { });
    removeStateFiles(dir, config, own);
    return answered;
  }

  /** The PIDs of the processes this object started that are still alive (after {@link #stopStarted}: none). */
  public List<Long> stillRunning() {
    return processes.stream().filter(Process::isAlive).map(Process::pid).toList();
  }

  /** {@link #stop(ClusterConfig, Duration, Consumer, Consumer)} without messages. */
  public static int stop(ClusterConfig config, Duration grace) {
    return stop(config, grace, line -> { }, refusal -> { });
  }

  /**
   * {@link #stop(ClusterConfig, Duration, Consumer, Consumer)}, telling {@code refused} about each address where
   * something answers that is not a server of this cluster (another cluster, another secret).
   */
  public static int stop(ClusterConfig config, Duration grace, Consumer<String> refused) {
    return stop(config, grace, line -> { }, refused);
  }

  /**
   * Asks every server of {@code config} to stop, and waits up to {@code grace} for the processes named in
   * the cluster's pid files, all together; kills those left (saying so to {@code log}) and removes the pid
   * files. A server whose process is alive but does not answer yet (still starting: not listening) is asked
   * again every {@link #STOP_RETRY} until it answers or its process exits; a server without a live process
   * is asked once. A server that refuses the request because it is not a server of this cluster (another
   * cluster's, or one with another secret: {@link ControlClient.RefusedException}) is reported to {@code refused}
   * and left running, its process neither waited for nor killed. Returns how many servers answered the request.
   */
  public static int stop(ClusterConfig config, Duration grace, Consumer<String> log, Consumer<String> refused) {
    Path dir = stateDir(config.name());
    Map<ServerSpec, ProcessHandle> own = new LinkedHashMap<>();
    Set<ServerSpec> started = new HashSet<>();
    for (ServerSpec s : config.servers()) {
      Path pidFile = dir.resolve(s.id() + ".pid");
      try {
        if (Files.exists(pidFile)) {
          Optional<ProcessHandle> h = ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()))
              .filter(p -> p.isAlive() && isKvlab(p));
          if (h.isPresent()) {
            own.put(s, h.get());
            if (startedAsRecorded(h.get(), dir.resolve(s.id() + STARTED))) {
              started.add(s);
            }
          }
        }
      } catch (IOException | NumberFormatException e) {
        // a pid file being rewritten or damaged: nothing to wait for
      }
    }
    int answered = stopServers(config, config.servers(), own, started, grace, log, refused);
    removeStateFiles(dir, config, own);
    return answered;
  }

  /**
   * True if {@code h} started at the instant {@code startedFile} recorded when {@code local up} started it: the PID
   * is still that process, not a reused one. False if there is no record (a pid file written by hand, or by an older
   * kvlab) or the platform does not tell a process's start.
   */
  static boolean startedAsRecorded(ProcessHandle h, Path startedFile) {
    try {
      if (!Files.exists(startedFile)) {
        return false;
      }
      java.time.Instant recorded = java.time.Instant.parse(Files.readString(startedFile).trim());
      return h.info().startInstant().map(now -> Duration.between(recorded, now).abs().compareTo(START_TOLERANCE) <= 0)
          .orElse(false);
    } catch (IOException | java.time.format.DateTimeParseException e) {
      return false;
    }
  }

  /**
   * Asks {@code servers} to stop and waits for the processes of {@code own} until {@code grace}, killing those left.
   * A server that refuses the request is reported to {@code refused} and its process left alone, unless it is one of
   * {@code started} (its PID is the process kvlab started): that process is stopped by signal (SIGTERM, then SIGKILL
   * after the grace time), since its handshake will never succeed.
   */
  private static int stopServers(ClusterConfig config, List<ServerSpec> servers, Map<ServerSpec, ProcessHandle> own,
      Set<ServerSpec> started, Duration grace, Consumer<String> log, Consumer<String> refused) {
    long deadline = System.nanoTime() + grace.toNanos();
    List<ServerSpec> pending = new ArrayList<>(servers);
    int answered = 0;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(16, servers.size())), r -> {
      Thread t = new Thread(r, "kvlab-stop");
      t.setDaemon(true);
      return t;
    });
    try {
      while (true) {
        // ask every pending server at once: one that hangs costs CONTROL_TIMEOUT, not that per server
        List<Future<Boolean>> asked = new ArrayList<>();
        for (ServerSpec s : pending) {
          asked.add(pool.submit(() -> requestShutdown(config, s)));
        }
        List<ServerSpec> next = new ArrayList<>();
        for (int i = 0; i < pending.size(); i++) {
          ServerSpec s = pending.get(i);
          boolean ok;
          try {
            ok = asked.get(i).get();
          } catch (ExecutionException e) {
            if (e.getCause() instanceof ControlClient.RefusedException r) {
              ProcessHandle h = own.get(s);
              if (h != null && started.contains(s)) { // ours, by PID and start time: stopped by signal
                log.accept("server " + s.id() + " refuses the handshake (" + r.getMessage() + "); stopping its"
                    + " process " + h.pid() + " by signal");
                h.destroy();
              } else {
                refused.accept(r.getMessage()); // not this cluster's server: left running, never killed
                own.remove(s);
              }
              continue;
            }
            ok = false;
          }
          ProcessHandle h = own.get(s);
          if (ok) {
            answered++;
          } else if (h != null && h.isAlive()) {
            next.add(s); // still starting (or busy): ask again
          }
        }
        pending = next;
        if (own.values().stream().noneMatch(ProcessHandle::isAlive) || System.nanoTime() >= deadline) {
          break;
        }
        Thread.sleep(STOP_RETRY.toMillis());
      }
      // wait for every process together, until the one deadline
      for (ProcessHandle h : own.values().stream().distinct().toList()) {
        long left = deadline - System.nanoTime();
        if (left > 0 && h.isAlive()) {
          try {
            h.onExit().get(left, TimeUnit.NANOSECONDS);
          } catch (TimeoutException | ExecutionException e) {
            // killed below
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      pool.shutdownNow();
    }
    List<ProcessHandle> killed = new ArrayList<>();
    for (ProcessHandle h : own.values().stream().distinct().toList()) {
      if (h.isAlive()) {
        log.accept("process " + h.pid() + " did not stop in " + grace.toSeconds() + " s; killing it");
        h.destroyForcibly();
        killed.add(h);
      }
    }
    awaitExit(killed, KILL_WAIT); // SIGKILL is asynchronous: the processes are gone when this returns
    return answered;
  }

  /**
   * Sends one shutdown request to {@code s}'s control endpoint, proving the cluster's secret: true if it
   * answered; throws {@link ControlClient.RefusedException} if what answers is not a server of this cluster.
   */
  private static boolean requestShutdown(ClusterConfig config, ServerSpec s) throws ControlClient.RefusedException {
    try {
      return ControlClient.shutdown(config, s, CONTROL_TIMEOUT);
    } catch (ControlClient.RefusedException e) {
      throw e;
    } catch (IOException e) {
      return false; // not listening (yet), or gone
    }
  }

  /**
   * Removes the pid files (and start records) of the servers whose process is gone, and the cluster's
   * {@code config} reference once none is left: a process that outlived a stop stays findable by {@code local down}.
   */
  private static void removeStateFiles(Path dir, ClusterConfig config, Map<ServerSpec, ProcessHandle> own) {
    boolean anyLeft = false;
    for (ServerSpec s : config.servers()) {
      ProcessHandle h = own.get(s);
      if (h != null && h.isAlive()) {
        anyLeft = true;
        continue;
      }
      try {
        Files.deleteIfExists(dir.resolve(s.id() + ".pid"));
        Files.deleteIfExists(dir.resolve(s.id() + STARTED));
      } catch (IOException e) {
        // the state directory is advisory
      }
    }
    if (!anyLeft) {
      try {
        Files.deleteIfExists(dir.resolve("config"));
      } catch (IOException e) {
        // the state directory is advisory
      }
    }
  }

  /**
   * Keeps the last {@code kept} logs: {@code log} becomes {@code log.1}, {@code log.1} becomes
   * {@code log.2}, ..., and the oldest is deleted. Best effort: a log that cannot be moved is overwritten.
   */
  static void rotate(Path log, int kept) {
    try {
      Files.deleteIfExists(log.resolveSibling(log.getFileName() + "." + kept));
      for (int i = kept - 1; i >= 1; i--) {
        Path from = log.resolveSibling(log.getFileName() + "." + i);
        if (Files.exists(from)) {
          Files.move(from, log.resolveSibling(log.getFileName() + "." + (i + 1)), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      if (kept > 0 && Files.exists(log)) {
        Files.move(log, log.resolveSibling(log.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      // rotation is a convenience: the new log is written anyway
    }
  }

  /** Clusters started from this directory whose state directory still names a cluster file. */
  public static List<Path> knownClusterFiles() throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(STATE)) {
      return out;
    }
    try (Stream<Path> dirs = Files.list(STATE)) {
      for (Path d : dirs.sorted().toList()) {
        Path ref = d.resolve("config");
        if (Files.isRegularFile(ref)) {
          out.add(Path.of(Files.readString(ref, StandardCharsets.UTF_8).trim()));
        }
      }
    }
    return out;
  }

  static boolean isKvlab(ProcessHandle h) {
    // A process whose command line cannot be read is not known to be kvlab: never wait for or kill it.
    return commandLine(h).map(c -> c.contains("org.kvlab.cli.Main")).orElse(false);
  }

  /**
   * The command line of {@code h}: from {@code /proc/PID/cmdline} where there is one (ProcessHandle.Info gives
   * no arguments at all for a command line over about 4 KB, such as a JVM with a long class path), else from
   * ProcessHandle.Info; empty if neither can be read.
   */
  static Optional<String> commandLine(ProcessHandle h) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
      if (raw.length > 0) {
        return Optional.of(new String(raw, java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' '));
      }
    } catch (IOException | SecurityException | UnsupportedOperationException e) {
      // no procfs (not Linux) or not ours to read: ask the JDK
    }
    return h.info().arguments().map(a -> String.join(" ", a));
  }

  /**
   * Refuses a server this machine cannot listen for, with the fix for its cause: a host that does not resolve, a
   * host that is not an address of this machine, or a port in use.
   */
  static void checkPortFree(ServerSpec s, Path file) throws LaunchException {
    InetSocketAddress address = new InetSocketAddress(s.host(), s.port());
    String where = "server " + s.id() + " cannot listen on " + UserText.cut(s.host()) + ":" + s.port();
    if (address.isUnresolved()) {
      throw new LaunchException(where + ": host " + UserText.quoted(s.host()) + " does not resolve to an address."
          + " Fix: correct the host in " + file + " (a local cluster runs on this machine: e.g. 127.0.0.1)", false);
    }
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(address);
    } catch (java.net.BindException e) {
      boolean inUse = e.getMessage() != null && e.getMessage().contains("in use");
      throw new LaunchException(where + " (" + e.getMessage() + "). Fix: " + (inUse
          ? "free the port (another process listens on it) or change it in " + file
          : "use a host that is an address of this machine (e.g. 127.0.0.1) in " + file), false);
    } catch (IOException e) {
      throw new LaunchException(where + " (" + e.getMessage() + "). Fix: check the host and port in " + file, false);
    }
  }

  /** The last {@code lines} lines of a log file. */
  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
