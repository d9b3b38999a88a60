package org.kvlab.cluster.ssh;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.runtime.ControlClient;
import org.kvlab.wire.Status;

/**
 * A kvlab cluster on real hosts over SSH: deploy the distribution and the cluster file, start each server
 * under its own PID file and log, query, stop by PID, fetch logs. Every operation runs on all hosts in
 * parallel; each host's progress is reported through the {@link SshEvent.Listener}, and a host that fails
 * is reported (cause and fix) in the returned {@link Report} while the others carry on. Prints nothing.
 *
 * <p>On each host, under the remote directory {@code R} (see {@link SshSettings#remoteDir()}):
 * <pre>
 * R/dist/&lt;build id&gt;/          the jars (SHA256SUMS beside them), uploaded once per build
 * R/clusters/&lt;name&gt;/cluster.yaml  the cluster file; servers run with this directory as working directory
 * R/clusters/&lt;name&gt;/classpath     which build the servers run
 * R/clusters/&lt;name&gt;/&lt;id&gt;.pid, &lt;id&gt;.log   one per server
 * R/clusters/&lt;name&gt;/secret/       (0700) the cluster's secret file (0600), when one is given
 * </pre>
 */
public final class SshCluster {
  /** Name of the cluster's secret file on each host, under {@code R/clusters/<name>/secret/}. */
  public static final String SECRET_FILE_NAME = "cluster.secret";
  public static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(2);
  public static final int JAVA_VERSION_MIN = 17;

  /** How one host fared: {@code error} is null when it succeeded. */
  public record HostResult(String host, SshException error) {
    public boolean ok() {
      return error == null;
    }
  }

  /** The outcome of an operation on every host, in the cluster file's order of hosts. */
  public record Report(List<HostResult> hosts) {
    public boolean ok() {
      return hosts.stream().allMatch(HostResult::ok);
    }

    public List<HostResult> failures() {
      return hosts.stream().filter(h -> !h.ok()).toList();
    }
  }

  /** One server: its process on its host ({@code pid} 0 if none runs) and its control endpoint's answer. */
  public record NodeStatus(ServerSpec server, long pid, Optional<Status> status) {
    public boolean running() {
      return pid > 0;
    }
  }

  private final Path clusterFile;
  private final ClusterConfig config;
  private final SshSettings settings;
  private final SshEvent.Listener listener;
  private final KnownHostsFile knownHosts;
  /** Server host (as in the cluster file) to its servers, in file order. */
  private final Map<String, List<ServerSpec>> byHost;
  private final Map<String, String> resolvedDirs = new ConcurrentHashMap<>();

  /**
   * @param clusterFile the cluster file (uploaded as is)
   * @param config its loaded form
   * @param settings how to reach the hosts
   * @param listener receives per-host events (from several threads)
   */
  public SshCluster(Path clusterFile, ClusterConfig config, SshSettings settings, SshEvent.Listener listener)
      throws SshException {
    this(clusterFile, config, settings, listener, List.of());
  }

  /**
   * A cluster whose client processes also run on {@code clientHosts} (hosts without servers get the distribution
   * and the cluster file on {@link #deploy}, but not the secret).
   */
  public SshCluster(Path clusterFile, ClusterConfig config, SshSettings settings, SshEvent.Listener listener,
      java.util.Collection<String> clientHosts) throws SshException {
    this.clusterFile = clusterFile;
    this.config = config;
    this.settings = settings;
    this.listener = listener == null ? e -> { } : listener;
    this.knownHosts = new KnownHostsFile(settings.knownHosts(), settings.hostKeys(),
        (host, type, fp) -> this.listener.on(new SshEvent(host, null, SshEvent.Kind.NEW_HOST_KEY,
            "recorded " + type + " key " + fp + " in " + settings.knownHosts())));
    Map<String, List<ServerSpec>> hosts = new LinkedHashMap<>();
    for (ServerSpec s : config.servers()) {
      hosts.computeIfAbsent(s.host(), h -> new ArrayList<>()).add(s);
    }
    for (String h : clientHosts) {
      hosts.computeIfAbsent(h, x -> new ArrayList<>());
    }
    this.byHost = Collections.unmodifiableMap(hosts);
  }

  /** An authenticated connection to {@code host} (as written in the cluster or hosts file); the caller closes it. */
  SshConnection connect(String host) throws SshException {
    return SshConnection.open(settings.sshAddress(host), settings, knownHosts);
  }

  /** The cluster's directory on {@code host}: {@code R/clusters/<name>} (made on first use). */
  String clusterDir(String host, SshConnection c) throws SshException {
    return clusterDir(remoteDir(host, c));
  }

  SshSettings settings() {
    return settings;
  }

  /** Deletes the servers' data directory ({@code R/clusters/<name>/data}) on every server host. */
  public Report deleteData() {
    return onEveryHost((host, c) -> {
      if (!byHost.get(host).isEmpty()) {
        run(c, "rm -rf " + q(clusterDir(remoteDir(host, c)) + "/data"), "delete the data directory");
      }
    });
  }

  public ClusterConfig config() {
    return config;
  }

  /** The hosts of the cluster file, each with its servers. */
  public Map<String, List<ServerSpec>> hosts() {
    return byHost;
  }

  // ---------------------------------------------------------------------------------------------
  // Operations

  /**
   * On every host: checks Java 17+, uploads the distribution unless the same build is there already (by
   * SHA-256), uploads the cluster file, and the secret file when {@code secretFile} is not null (mode 0600
   * in a 0700 directory, sent over SFTP: never on a command line or in an event).
   */
  public Report deploy(Distribution dist, Path secretFile) {
    return onEveryHost((host, c) -> {
      String r = remoteDir(host, c);
      checkJava(host, c);
      uploadDistribution(host, c, r, dist);
      String cdir = clusterDir(r);
      run(c, "mkdir -p " + q(cdir) + " && chmod 755 " + q(cdir), "create " + cdir);
      c.upload(clusterFile, cdir + "/cluster.yaml", 0644);
      StringBuilder cp = new StringBuilder();
      for (Distribution.FileEntry f : dist.files()) {
        cp.append(cp.length() == 0 ? "" : ":").append(r).append("/dist/").append(dist.id()).append('/').append(f.name());
      }
      c.upload(new ByteArrayInputStream(cp.toString().getBytes(StandardCharsets.UTF_8)), cdir + "/classpath", 0644);
      listener.on(new SshEvent(host, null, SshEvent.Kind.CONFIG_UPLOADED, cdir + "/cluster.yaml"));
      if (secretFile != null && !byHost.get(host).isEmpty()) {
        // The place for the cluster's authentication secret: a 0700 directory first, so the file is never
        // readable by others, not even between its creation and its chmod.
        String sdir = cdir + "/secret";
        run(c, "mkdir -p " + q(sdir) + " && chmod 700 " + q(sdir), "create " + sdir);
        c.upload(secretFile, sdir + "/" + SECRET_FILE_NAME, 0600);
        listener.on(new SshEvent(host, null, SshEvent.Kind.SECRET_UPLOADED, sdir + "/" + SECRET_FILE_NAME + " (0600)"));
      }
    });
  }

  /**
   * Starts every server not running yet, each under {@code <id>.pid} with its output in {@code <id>.log},
   * and waits up to {@code wait} until each answers on its control endpoint. A server that exits is
   * reported with the end of its log.
   */
  public Report start(Duration wait) {
    return onEveryHost((host, c) -> {
      String cdir = clusterDir(remoteDir(host, c));
      ExecResultCheck.ok(c.exec("test -f " + q(cdir + "/cluster.yaml") + " && test -f " + q(cdir + "/classpath")),
          host, "the cluster is not deployed on this host (" + cdir + ")", "run deploy first (kvlab ssh deploy)");
      for (ServerSpec s : byHost.get(host)) {
        String id = s.id().toString();
        String cmd = "cd " + q(cdir) + " || exit 4\n" + aliveFunction()
            + "if [ -f " + id + ".pid ] && alive \"$(cat " + id + ".pid)\" " + id + "; then echo \"running $(cat " + id
            + ".pid)\"; exit 0; fi\n"
            + "nohup setsid " + settings.java() + " " + settings.jvmOptions() + " -cp \"$(cat classpath)\""
            + " org.kvlab.cli.Main server --config cluster.yaml --node " + id
            + " --secret-file secret/" + SECRET_FILE_NAME
            + (settings.listen() == null ? "" : " --listen " + q(settings.listen())) + " > " + id + ".log 2>&1 < /dev/null &\n"
            + "echo $! > " + id + ".pid\n"
            + "echo \"started $!\"\n";
        SshConnection.ExecResult r = c.exec(cmd);
        if (!r.ok()) {
          throw new SshException(c.label(), "cannot start server " + id + ": " + (r.stderr() + r.stdout()).strip(),
              "check " + cdir + "/" + id + ".log on the host");
        }
        String[] w = r.stdout().strip().split("\\s+");
        listener.on(new SshEvent(host, id, w[0].equals("running") ? SshEvent.Kind.ALREADY_RUNNING : SshEvent.Kind.STARTED,
            "pid " + w[w.length - 1]));
      }
      awaitAnswering(host, c, cdir, wait);
    });
  }

  private void awaitAnswering(String host, SshConnection c, String cdir, Duration wait) throws SshException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    List<ServerSpec> pending = new ArrayList<>(byHost.get(host));
    while (!pending.isEmpty()) {
      for (var it = pending.iterator(); it.hasNext(); ) {
        ServerSpec s = it.next();
        Optional<Status> st = controlStatus(s);
        if (st.isPresent()) {
          listener.on(new SshEvent(host, s.id().toString(), SshEvent.Kind.RUNNING,
              "answers on " + s.host() + ":" + s.port()));
          it.remove();
        }
      }
      if (pending.isEmpty()) {
        return;
      }
      Map<String, Long> pids = pids(c, cdir, pending);
      for (ServerSpec s : pending) {
        if (pids.getOrDefault(s.id().toString(), 0L) == 0) {
          String tail = c.exec("tail -n 15 " + q(cdir + "/" + s.id() + ".log")).stdout();
          throw new SshException(c.label(), "server " + s.id() + " exited:\n" + tail.strip(),
              "read " + cdir + "/" + s.id() + ".log on the host (kvlab ssh logs); a port in use needs another port in"
                  + " the cluster file");
        }
      }
      if (System.nanoTime() > deadline) {
        ServerSpec s = pending.get(0);
        throw new SshException(c.label(), "server " + s.id() + " runs but its control endpoint " + s.host() + ":"
            + s.port() + " did not answer from here within " + wait.toSeconds() + " s",
            "check that this machine may reach " + s.host() + ":" + s.port() + " (firewall, security group), and"
                + " the server's log (kvlab ssh logs)");
      }
      Thread.sleep(200);
    }
  }

  /**
   * Stops every server by its PID file: SIGTERM (a graceful shutdown), then SIGKILL for a server still
   * running after {@code grace}. Also cleans up a half-started cluster (servers without a PID file are
   * reported as not running).
   */
  public Report stop(Duration grace) {
    return onEveryHost((host, c) -> {
      String cdir = clusterDir(remoteDir(host, c));
      long tenths = Math.max(1, grace.toMillis() / 100);
      // gone: the process has exited (a zombie waiting for its parent counts as gone).
      StringBuilder cmd = new StringBuilder("cd " + q(cdir) + " 2>/dev/null || exit 0\n" + aliveFunction()
          + "gone() { ! kill -0 \"$1\" 2>/dev/null || [ \"$(cut -d' ' -f3 /proc/\"$1\"/stat 2>/dev/null)\" = Z ]; }\n");
      for (ServerSpec s : byHost.get(host)) {
        String id = s.id().toString();
        cmd.append("if [ -f ").append(id).append(".pid ]; then pid=$(cat ").append(id).append(".pid)\n")
            .append("  if alive \"$pid\" ").append(id).append("; then kill -TERM \"$pid\"; i=0\n")
            .append("    while ! gone \"$pid\" && [ $i -lt ").append(tenths).append(" ]; do sleep 0.1; i=$((i+1)); done\n")
            .append("    if alive \"$pid\" ").append(id).append("; then kill -KILL \"$pid\"; echo \"").append(id).append(" killed $pid\";")
            .append(" else echo \"").append(id).append(" stopped $pid\"; fi\n")
            .append("  else echo \"").append(id).append(" not-running\"; fi\n")
            .append("  rm -f ").append(id).append(".pid\n")
            .append("else echo \"").append(id).append(" not-running\"; fi\n");
      }
      SshConnection.ExecResult r = c.exec(cmd.toString(), grace.multipliedBy(byHost.get(host).size()).plusSeconds(30));
      if (!r.ok()) {
        throw new SshException(c.label(), "stopping failed: " + (r.stderr() + r.stdout()).strip(),
            "look at the processes on the host (ps -ef | grep kvlab)");
      }
      for (String line : r.stdout().split("\n")) {
        String[] w = line.strip().split("\\s+");
        if (w.length < 2) {
          continue;
        }
        SshEvent.Kind kind = switch (w[1]) {
          case "stopped" -> SshEvent.Kind.STOPPED;
          case "killed" -> SshEvent.Kind.KILLED;
          default -> SshEvent.Kind.NOT_RUNNING;
        };
        listener.on(new SshEvent(host, w[0], kind, w.length > 2 ? "pid " + w[2]
            + (kind == SshEvent.Kind.KILLED ? " (still running after " + grace.toSeconds() + " s)" : "") : ""));
      }
    });
  }

  /** The status of every server: its process on its host and its control endpoint's answer. */
  public List<NodeStatus> status(List<HostResult> failures) {
    Map<ServerSpec, NodeStatus> found = new ConcurrentHashMap<>();
    Report report = onEveryHost((host, c) -> {
      String cdir = clusterDir(remoteDir(host, c));
      Map<String, Long> pids = pids(c, cdir, byHost.get(host));
      for (ServerSpec s : byHost.get(host)) {
        long pid = pids.getOrDefault(s.id().toString(), 0L);
        Optional<Status> st = controlStatus(s);
        found.put(s, new NodeStatus(s, pid, st));
        listener.on(new SshEvent(host, s.id().toString(), pid > 0 ? SshEvent.Kind.RUNNING : SshEvent.Kind.NOT_RUNNING,
            pid > 0 ? "pid " + pid : ""));
      }
    });
    if (failures != null) {
      failures.addAll(report.failures());
    }
    List<NodeStatus> all = new ArrayList<>();
    for (ServerSpec s : config.servers()) {
      all.add(found.getOrDefault(s, new NodeStatus(s, 0, controlStatus(s))));
    }
    return all;
  }

  /** Copies each server's log to {@code localDir/<id>.log}. */
  public Report fetchLogs(Path localDir) {
    try {
      Files.createDirectories(localDir);
    } catch (IOException e) {
      return new Report(byHost.keySet().stream().map(h -> new HostResult(h, new SshException(localDir.toString(),
          "cannot create " + localDir + ": " + e.getMessage(), "check the local directory"))).toList());
    }
    return onEveryHost((host, c) -> {
      String cdir = clusterDir(remoteDir(host, c));
      for (ServerSpec s : byHost.get(host)) {
        Path to = localDir.resolve(s.id() + ".log");
        c.download(cdir + "/" + s.id() + ".log", to);
        listener.on(new SshEvent(host, s.id().toString(), SshEvent.Kind.LOG_FETCHED, to.toString()));
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Per host

  @FunctionalInterface
  private interface HostTask {
    void run(String host, SshConnection c) throws SshException, InterruptedException;
  }

  private Report onEveryHost(HostTask task) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, byHost.size()), r -> {
      Thread t = new Thread(r, "kvlab-ssh");
      t.setDaemon(true);
      return t;
    });
    try {
      Map<String, Future<SshException>> futures = new LinkedHashMap<>();
      for (String host : byHost.keySet()) {
        futures.put(host, pool.submit(() -> {
          try (SshConnection c = SshConnection.open(settings.sshAddress(host), settings, knownHosts)) {
            listener.on(new SshEvent(host, null, SshEvent.Kind.CONNECTED, c.label()));
            task.run(host, c);
            return null;
          } catch (SshException e) {
            listener.on(new SshEvent(host, null, SshEvent.Kind.FAILED, e.getMessage()));
            return e;
          } catch (RuntimeException e) {
            SshException wrapped = new SshException(host, "unexpected error: " + e, "report this as a kvlab bug", e);
            listener.on(new SshEvent(host, null, SshEvent.Kind.FAILED, wrapped.getMessage()));
            return wrapped;
          }
        }));
      }
      List<HostResult> results = new ArrayList<>();
      for (Map.Entry<String, Future<SshException>> f : futures.entrySet()) {
        try {
          results.add(new HostResult(f.getKey(), f.getValue().get()));
        } catch (ExecutionException e) {
          results.add(new HostResult(f.getKey(), new SshException(f.getKey(), "failed: " + e.getCause(), "", e)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          pool.shutdownNow();
          results.add(new HostResult(f.getKey(), new SshException(f.getKey(), "interrupted", "")));
        }
      }
      return new Report(results);
    } finally {
      pool.shutdownNow();
    }
  }

  private String remoteDir(String host, SshConnection c) throws SshException {
    String dir = settings.remoteDirFor(host);
    String cached = resolvedDirs.get(host);
    if (cached != null) {
      return cached;
    }
    String arg = dir.equals("~") ? "." : dir.startsWith("~/") ? dir.substring(2) : dir;
    SshConnection.ExecResult r = c.exec("mkdir -p -- " + q(arg) + " && cd -- " + q(arg) + " && pwd -P");
    if (!r.ok() || r.stdout().isBlank()) {
      throw new SshException(c.label(), "cannot create the remote directory " + dir + ": " + r.stderr().strip(),
          "set 'dir:' in the ssh section to a directory the user '" + settings.user() + "' may write");
    }
    String resolved = r.stdout().strip();
    resolvedDirs.put(host, resolved);
    return resolved;
  }

  private String clusterDir(String remoteDir) {
    return remoteDir + "/clusters/" + config.name();
  }

  private static final Pattern JAVA_VERSION = Pattern.compile("version \"(\\d+)(?:\\.(\\d+))?");

  private void checkJava(String host, SshConnection c) throws SshException {
    SshConnection.ExecResult r = c.exec(settings.java() + " -version 2>&1");
    Matcher m = JAVA_VERSION.matcher(r.stdout());
    if (!r.ok() || !m.find()) {
      throw new SshException(c.label(), "no Java on the host ('" + settings.java() + " -version' "
          + (r.exitStatus() == 127 ? "was not found" : "answered: " + r.stdout().strip()) + ")",
          "install a JDK or JRE " + JAVA_VERSION_MIN + "+ on the host (Debian/Ubuntu: apt-get install"
              + " openjdk-17-jre-headless), or set 'java:' in the ssh section to its java command");
    }
    int major = Integer.parseInt(m.group(1));
    if (major == 1 && m.group(2) != null) {
      major = Integer.parseInt(m.group(2));
    }
    if (major < JAVA_VERSION_MIN) {
      throw new SshException(c.label(), "Java " + major + " is too old: kvlab needs Java " + JAVA_VERSION_MIN + " or later",
          "install a JDK or JRE " + JAVA_VERSION_MIN + "+ on the host, or set 'java:' in the ssh section to a newer"
              + " one's java command");
    }
    listener.on(new SshEvent(host, null, SshEvent.Kind.JAVA_CHECKED, "Java " + major));
  }

  private void uploadDistribution(String host, SshConnection c, String r, Distribution dist) throws SshException {
    String ddir = r + "/dist/" + dist.id();
    SshConnection.ExecResult present = c.exec("cd " + q(ddir) + " 2>/dev/null && sha256sum -c --quiet --status SHA256SUMS");
    if (present.ok()) {
      listener.on(new SshEvent(host, null, SshEvent.Kind.UPLOAD_SKIPPED, "build " + dist.id() + " is already in "
          + ddir + " (same SHA-256)"));
      return;
    }
    String tmp = r + "/dist/.upload-" + dist.id() + "-" + Long.toHexString(System.nanoTime());
    run(c, "mkdir -p " + q(tmp), "create " + tmp);
    for (Distribution.FileEntry f : dist.files()) {
      c.upload(f.local(), tmp + "/" + f.name(), 0644);
    }
    c.upload(new ByteArrayInputStream(dist.checksums().getBytes(StandardCharsets.UTF_8)), tmp + "/SHA256SUMS", 0644);
    SshConnection.ExecResult check = c.exec("cd " + q(tmp) + " && sha256sum -c --quiet SHA256SUMS 2>&1");
    if (!check.ok()) {
      c.exec("rm -rf " + q(tmp));
      throw new SshException(c.label(), "the uploaded files do not have their checksums: " + check.stdout().strip(),
          "deploy again; if it persists, check the host's disk (df -h " + r + ")");
    }
    run(c, "rm -rf " + q(ddir) + " && mv " + q(tmp) + " " + q(ddir), "install " + ddir);
    listener.on(new SshEvent(host, null, SshEvent.Kind.UPLOADED, dist.files().size() + " file(s), "
        + dist.bytes() / 1024 + " KiB to " + ddir));
  }

  /** PIDs of the given servers that run (by their PID files, checked against the process's command line). */
  private Map<String, Long> pids(SshConnection c, String cdir, List<ServerSpec> servers) throws SshException {
    StringBuilder cmd = new StringBuilder("cd " + q(cdir) + " 2>/dev/null || exit 0\n" + aliveFunction());
    for (ServerSpec s : servers) {
      String id = s.id().toString();
      cmd.append("if [ -f ").append(id).append(".pid ] && alive \"$(cat ").append(id).append(".pid)\" ").append(id)
          .append("; then echo \"").append(id).append(" $(cat ").append(id).append(".pid)\"; fi\n");
    }
    SshConnection.ExecResult r = c.exec(cmd.toString());
    Map<String, Long> pids = new LinkedHashMap<>();
    for (String line : r.stdout().split("\n")) {
      String[] w = line.strip().split("\\s+");
      if (w.length == 2) {
        pids.put(w[0], Long.parseLong(w[1]));
      }
    }
    return pids;
  }

  /**
   * A shell function {@code alive PID ID}: true if PID runs and is the kvlab server of node ID (so a PID
   * reused by another process after a crash is never signalled).
   */
  private static String aliveFunction() {
    return "alive() { [ -n \"$1\" ] && kill -0 \"$1\" 2>/dev/null && tr '\\0' ' ' < /proc/\"$1\"/cmdline 2>/dev/null"
        + " | grep -q -- \"org.kvlab.cli.Main server --config cluster.yaml --node $2\\( \\|\\$\\)\"; }\n";
  }

  private Optional<Status> controlStatus(ServerSpec s) {
    try {
      return Optional.of(ControlClient.status(config, s, CONTROL_TIMEOUT));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static void run(SshConnection c, String command, String what) throws SshException {
    SshConnection.ExecResult r = c.exec(command);
    if (!r.ok()) {
      throw new SshException(c.label(), "cannot " + what + ": " + (r.stderr() + r.stdout()).strip(),
          "check the permissions of the remote directory (the ssh section's 'dir')");
    }
  }

  private static String q(String s) {
    return SshConnection.quote(s);
  }

  /** Small helper for checks on command results. */
  private static final class ExecResultCheck {
    static void ok(SshConnection.ExecResult r, String host, String problem, String fix) throws SshException {
      if (!r.ok()) {
        throw new SshException(host, problem, fix);
      }
    }
  }
}
