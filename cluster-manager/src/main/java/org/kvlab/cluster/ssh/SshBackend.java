package org.kvlab.cluster.ssh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.kvlab.api.NodeId;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientHandle;
import org.kvlab.cluster.ClientSpec;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.config.ClusterSecret;

/**
 * The SSH backend: servers and client processes on the hosts of a {@link SshHosts} file, through
 * {@link SshCluster} (distribution uploaded once per build, servers under PID files, stop by PID). Client
 * processes run in {@code R/clusters/<name>/clients/<client>/} on a client host of their datacenter, under
 * {@code setsid} (killed as a process group); their standard error is read back while they run (for progress)
 * and all their files are downloaded by {@link ClientHandle#collect()}.
 */
public class SshBackend implements ClusterBackend {
  /** Where servers keep their data on each host, relative to the cluster's directory there. */
  public static final String DATA_DIR = "data";
  static final long POLL_MILLIS = 500;

  private final String name;
  private final SshHosts hosts;
  private final Distribution dist;
  private final ClusterListener listener;
  private final Map<String, Integer> nextClientHost = new ConcurrentHashMap<>();
  private final List<SshClient> clients = new CopyOnWriteArrayList<>();
  private final Map<String, ClusterRef> running = new ConcurrentHashMap<>();

  public SshBackend(SshHosts hosts, Distribution dist, ClusterListener listener) {
    this("ssh", hosts, dist, listener);
  }

  protected SshBackend(String name, SshHosts hosts, Distribution dist, ClusterListener listener) {
    this.name = name;
    this.hosts = hosts;
    this.dist = dist;
    this.listener = listener == null ? ClusterListener.NONE : listener;
  }

  @Override
  public String name() {
    return name;
  }

  public SshHosts hosts() {
    return hosts;
  }

  /** Refuses {@code hosts} if it has hosts for fewer than {@code datacenters} datacenters. */
  public static void checkCovers(int datacenters, SshHosts hosts) throws BackendException {
    if (datacenters > hosts.datacenters().size()) {
      throw new BackendException("the cluster has " + datacenters + " datacenters, and the hosts file lists hosts for "
          + hosts.datacenters().size() + ". Fix: add a 'datacenters:' entry (servers: [...]) per datacenter to the"
          + " hosts file, or run fewer datacenters");
    }
  }

  @Override
  public ClusterConfig place(ClusterConfig planned, Path localDataDir) throws BackendException {
    checkCovers(planned.topology().datacenters(), hosts);
    List<ServerSpec> servers = new ArrayList<>();
    int i = 0;
    for (NodeId id : planned.topology().allNodes()) {
      List<String> on = hosts.datacenters().get(id.dc()).servers();
      servers.add(new ServerSpec(id, on.get(id.partition() % on.size()), hosts.basePort() + i++));
    }
    StorageSpec st = planned.storage();
    return new ClusterConfig(planned.source(), planned.name(), planned.protocol(), planned.params(), planned.topology(),
        servers, new StorageSpec(st.engine(), st.durability(), Path.of(DATA_DIR)), planned.emulation(),
        planned.limits(), planned.security());
  }

  /** The client hosts of the datacenters the cluster has. */
  private List<String> clientHosts(ClusterConfig config) {
    List<String> out = new ArrayList<>();
    for (int d = 0; d < Math.min(config.topology().datacenters(), hosts.datacenters().size()); d++) {
      hosts.datacenters().get(d).clients().stream().filter(h -> !out.contains(h)).forEach(out::add);
    }
    return out;
  }

  private SshCluster cluster(ClusterRef ref, String jvmOptions) throws BackendException {
    SshSettings s = jvmOptions == null ? hosts.settings() : hosts.settings().withJvmOptions(jvmOptions);
    try {
      return new SshCluster(ref.file(), ref.config(), s, this::forward, clientHosts(ref.config()));
    } catch (SshException e) {
      throw new BackendException(e.getMessage(), e);
    }
  }

  private void forward(SshEvent e) {
    listener.event(new ClusterEvent(name, e.host(), e.node(), ClusterEvent.Kind.valueOf(e.kind().name()), e.message()));
  }

  private static BackendException failed(String what, SshCluster.Report r) {
    StringBuilder sb = new StringBuilder(what + " failed on " + r.failures().size() + " host(s):");
    for (SshCluster.HostResult h : r.failures()) {
      sb.append("\n  ").append(h.error().getMessage());
    }
    return new BackendException(sb.toString());
  }

  @Override
  public void deploy(ClusterRef ref) throws BackendException {
    try {
      ref.config().security().loadOrCreate();
    } catch (ClusterSecret.SecretException e) {
      throw new BackendException(e.getMessage(), e);
    }
    listener.progress("deploying " + ref.config().name() + " to " + (clientHosts(ref.config()).size()
        + ref.config().servers().stream().map(ServerSpec::host).distinct().count()) + " host roles");
    SshCluster.Report r = cluster(ref, null).deploy(dist, ref.config().security().secretFile());
    if (!r.ok()) {
      throw failed("deploy", r);
    }
  }

  @Override
  public void start(ClusterRef ref, StartOptions options) throws BackendException {
    SshCluster c = cluster(ref, options.jvmOptions());
    running.put(ref.config().name(), ref);
    SshCluster.Report r = c.start(options.waitLimit());
    if (!r.ok()) {
      c.stop(Duration.ofSeconds(10));
      running.remove(ref.config().name());
      throw failed("starting the servers", r);
    }
    long deadline = System.nanoTime() + options.waitLimit().toNanos();
    while (true) {
      List<NodeState> st = status(ref);
      if (st.stream().allMatch(NodeState::connected)) {
        return;
      }
      if (options.cancelled().getAsBoolean() || System.nanoTime() > deadline) {
        c.stop(Duration.ofSeconds(10));
        running.remove(ref.config().name());
        if (options.cancelled().getAsBoolean()) {
          throw new BackendException("stopped (Ctrl-C) while the cluster was starting", null, true);
        }
        throw new BackendException("the servers run but not all are connected to their peers within "
            + options.waitLimit().toSeconds() + " s (" + st.stream().filter(n -> !n.connected())
                .map(n -> n.server().id() + "@" + n.server().host()).toList() + "). Fix: check that the hosts reach"
            + " each other on ports " + hosts.basePort() + "+ (firewall), and the server logs (kvlab ssh logs)");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        c.stop(Duration.ofSeconds(10));
        throw new BackendException("interrupted while the cluster was starting", e, true);
      }
    }
  }

  @Override
  public List<NodeState> status(ClusterRef ref) {
    try {
      List<SshCluster.HostResult> failures = new ArrayList<>();
      List<SshCluster.NodeStatus> all = cluster(ref, null).status(failures);
      Map<String, String> problems = new java.util.HashMap<>();
      failures.forEach(f -> problems.put(f.host(), f.error().getMessage()));
      return all.stream().map(n -> new NodeState(n.server(), n.pid(), n.status(), problems.get(n.server().host()))).toList();
    } catch (BackendException e) {
      return ref.config().servers().stream().map(s -> new NodeState(s, 0, java.util.Optional.empty(), e.getMessage())).toList();
    }
  }

  @Override
  public boolean stop(ClusterRef ref, Duration grace) throws BackendException {
    for (SshClient c : clients) {
      if (c.cluster.equals(ref.config().name())) {
        c.kill();
      }
    }
    SshCluster.Report r = cluster(ref, null).stop(grace);
    running.remove(ref.config().name());
    if (!r.ok()) {
      throw failed("stopping the servers", r);
    }
    return true;
  }

  @Override
  public void fetchLogs(ClusterRef ref, Path localDir) throws BackendException {
    SshCluster.Report r = cluster(ref, null).fetchLogs(localDir);
    if (!r.ok()) {
      throw failed("fetching the logs", r);
    }
  }

  @Override
  public void deleteData(ClusterRef ref) {
    try {
      SshCluster.Report r = cluster(ref, null).deleteData();
      for (SshCluster.HostResult h : r.failures()) {
        listener.event(new ClusterEvent(name, h.host(), null, ClusterEvent.Kind.FAILED, h.error().getMessage()));
      }
    } catch (BackendException e) {
      listener.event(new ClusterEvent(name, null, null, ClusterEvent.Kind.FAILED, e.getMessage()));
    }
  }

  @Override
  public ClientHandle startClient(ClusterRef ref, ClientSpec spec) throws BackendException {
    int dc = spec.datacenter();
    if (dc >= hosts.datacenters().size()) {
      throw new BackendException("client " + spec.name() + " belongs to datacenter " + dc + ", which the hosts file"
          + " has no hosts for. Fix: add an entry per datacenter to 'datacenters:' in the hosts file");
    }
    List<String> on = hosts.datacenters().get(dc).clients();
    int k = nextClientHost.merge(ref.config().name() + "/" + dc, 1, Integer::sum) - 1;
    String host = on.get(k % on.size());
    SshCluster sc = cluster(ref, null);
    SshConnection c = null;
    try {
      c = sc.connect(host);
      String cdir = sc.clusterDir(host, c);
      String wdir = cdir + "/clients/" + spec.name().replaceAll("[^A-Za-z0-9._-]", "-");
      StringBuilder mk = new StringBuilder("rm -rf " + q(wdir) + " && mkdir -p " + q(wdir));
      for (String d : spec.dirs()) {
        mk.append(' ').append(q(wdir + "/" + d));
      }
      exec(c, mk.toString(), "create " + wdir);
      for (Map.Entry<String, Path> in : spec.inputs().entrySet()) {
        c.upload(in.getValue(), wdir + "/" + in.getKey(), 0644);
      }
      StringBuilder java = new StringBuilder(hosts.settings().java());
      for (String o : spec.jvmOptions()) {
        java.append(' ').append(q(o));
      }
      java.append(" -cp \"$(cat ").append(q(cdir + "/classpath")).append(")\" ").append(q(spec.mainClass()));
      for (String a : spec.argsWith(cdir + "/cluster.yaml")) {
        java.append(' ').append(q(a));
      }
      String inner = java + " > stdout.txt 2> stderr.txt; echo $? > exit.code";
      Files.createDirectories(spec.localDir());
      Files.writeString(spec.localDir().resolve("command.txt"), host + ": cd " + wdir + " && " + inner + "\n");
      String launch = "cd " + q(wdir) + " || exit 4\nnohup setsid sh -c " + q(inner)
          + " > /dev/null 2>&1 < /dev/null &\necho $! > pid\necho $!\n";
      SshConnection.ExecResult r = exec(c, launch, "start client " + spec.name());
      long pid = Long.parseLong(r.stdout().strip());
      SshClient client = new SshClient(ref.config().name(), spec, host, c, wdir, pid);
      clients.add(client);
      listener.event(new ClusterEvent(name, host, spec.name(), ClusterEvent.Kind.CLIENT_STARTED, "pid " + pid + " in " + wdir));
      return client;
    } catch (SshException e) {
      if (c != null) {
        c.close();
      }
      throw new BackendException("cannot start client " + spec.name() + ": " + e.getMessage(), e);
    } catch (IOException | NumberFormatException e) {
      if (c != null) {
        c.close();
      }
      throw new BackendException("cannot start client " + spec.name() + " on " + host + ": " + e.getMessage()
          + ". Fix: check the host's shell and the local directory " + spec.localDir(), e);
    }
  }

  private static SshConnection.ExecResult exec(SshConnection c, String cmd, String what) throws SshException {
    SshConnection.ExecResult r = c.exec(cmd);
    if (!r.ok()) {
      throw new SshException(c.label(), "cannot " + what + ": " + (r.stderr() + r.stdout()).strip(),
          "check the remote directory's permissions and disk space (the ssh section's 'dir')");
    }
    return r;
  }

  private static String q(String s) {
    return SshConnection.quote(s);
  }

  @Override
  public void destroyStarted() {
    clients.forEach(SshClient::kill);
    for (ClusterRef ref : running.values()) {
      try {
        cluster(ref, null).stop(Duration.ofSeconds(2));
      } catch (BackendException e) {
        // best effort (a Ctrl-C hook)
      }
    }
  }

  @Override
  public void close() throws BackendException {
    clients.forEach(SshClient::close);
    clients.clear();
  }

  /** A client process on a host, polled over its own SSH connection. */
  private final class SshClient implements ClientHandle {
    final String cluster;
    final ClientSpec spec;
    final String host;
    final SshConnection conn;
    final String wdir;
    final long pid;
    private long stderrOffset = 1; // tail -c +N counts from 1
    private long lastPoll;
    private volatile int exit = -1;
    private boolean closed;

    SshClient(String cluster, ClientSpec spec, String host, SshConnection conn, String wdir, long pid) {
      this.cluster = cluster;
      this.spec = spec;
      this.host = host;
      this.conn = conn;
      this.wdir = wdir;
      this.pid = pid;
    }

    @Override
    public String name() {
      return spec.name();
    }

    @Override
    public String host() {
      return host;
    }

    @Override
    public boolean waitFor(long millis) throws InterruptedException {
      if (exit >= 0) {
        return true;
      }
      long wait = lastPoll + POLL_MILLIS * 1_000_000 - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(Math.min(millis, wait / 1_000_000));
        if (System.nanoTime() < lastPoll + POLL_MILLIS * 1_000_000) {
          return false;
        }
      }
      poll();
      return exit >= 0;
    }

    private synchronized void poll() {
      if (closed || exit >= 0) {
        return;
      }
      lastPoll = System.nanoTime();
      String cmd = "cd " + q(wdir) + " || exit 4\n"
          + "if [ -s exit.code ]; then echo \"EXIT $(cat exit.code)\"; elif kill -0 " + pid + " 2>/dev/null; then"
          + " echo RUNNING; else echo GONE; fi\n"
          + "tail -c +" + stderrOffset + " stderr.txt 2>/dev/null\n";
      try {
        SshConnection.ExecResult r = conn.exec(cmd);
        String out = r.stdout();
        int nl = out.indexOf('\n');
        String state = nl < 0 ? out.strip() : out.substring(0, nl).strip();
        String rest = nl < 0 ? "" : out.substring(nl + 1);
        int lastNl = rest.lastIndexOf('\n');
        boolean ended = state.startsWith("EXIT") || state.equals("GONE");
        String complete = ended ? rest : lastNl < 0 ? "" : rest.substring(0, lastNl + 1);
        stderrOffset += complete.getBytes(StandardCharsets.UTF_8).length;
        for (String line : complete.split("\n", -1)) {
          if (!line.isEmpty()) {
            spec.stderrLines().accept(line);
          }
        }
        if (state.startsWith("EXIT")) {
          exit = Integer.parseInt(state.substring(5).strip());
        } else if (state.equals("GONE")) {
          exit = 137; // killed: its shell did not record an exit code
        }
        if (exit >= 0) {
          listener.event(new ClusterEvent(name, host, spec.name(), ClusterEvent.Kind.CLIENT_EXITED, "exit code " + exit));
        }
      } catch (SshException | NumberFormatException e) {
        spec.stderrLines().accept("(lost contact with client " + spec.name() + " on " + host + ": " + e.getMessage() + ")");
        exit = 255;
      }
    }

    @Override
    public int exitCode() {
      return exit;
    }

    @Override
    public synchronized void kill() {
      if (closed || exit >= 0) {
        return;
      }
      try {
        conn.exec("kill -KILL -- -" + pid + " 2>/dev/null; kill -KILL " + pid + " 2>/dev/null; true");
        listener.event(new ClusterEvent(name, host, spec.name(), ClusterEvent.Kind.CLIENT_KILLED, "process group " + pid));
      } catch (SshException e) {
        listener.event(new ClusterEvent(name, host, spec.name(), ClusterEvent.Kind.FAILED, "cannot kill client: "
            + e.getMessage()));
      }
      poll();
      if (exit < 0) {
        exit = 137;
      }
    }

    @Override
    public synchronized Map<String, byte[]> readNew(String dir, Map<String, Long> offsets, int maxBytes)
        throws BackendException {
      if (closed) {
        return Map.of();
      }
      try {
        return SshTail.parse(conn.exec(SshTail.command(wdir + "/" + dir, offsets, maxBytes), SshTail.TIMEOUT).stdout(),
            offsets);
      } catch (SshException e) {
        throw new BackendException("cannot read the files in " + dir + " of client " + spec.name() + " on " + host
            + ": " + e.getMessage(), e);
      }
    }

    @Override
    public synchronized void collect() throws BackendException {
      if (closed) {
        return;
      }
      try {
        SshConnection.ExecResult r = conn.exec("cd " + q(wdir) + " && find . -type f");
        int n = 0;
        for (String f : r.stdout().split("\n")) {
          String rel = f.strip();
          if (rel.isEmpty() || !rel.startsWith("./")) {
            continue;
          }
          rel = rel.substring(2);
          if (spec.inputs().containsKey(rel) || rel.contains("..")) {
            continue;
          }
          Path to = spec.localDir().resolve(rel);
          Files.createDirectories(to.getParent());
          conn.download(wdir + "/" + rel, to);
          n++;
        }
        listener.event(new ClusterEvent(name, host, spec.name(), ClusterEvent.Kind.FILES_COLLECTED, n + " files to "
            + spec.localDir()));
      } catch (SshException | IOException e) {
        throw new BackendException("cannot collect the files of client " + spec.name() + " from " + host + ": "
            + e.getMessage(), e);
      } finally {
        close();
      }
    }

    synchronized void close() {
      if (!closed) {
        closed = true;
        conn.close();
        clients.remove(this);
      }
    }
  }
}
