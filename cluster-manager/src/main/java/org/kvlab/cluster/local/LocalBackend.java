package org.kvlab.cluster.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientHandle;
import org.kvlab.cluster.ClientSpec;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.FileTail;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.ServerSpec;
import org.kvlab.config.ClusterSecret;

/**
 * The local backend: servers and clients are child JVMs of this one, with this JVM's (or a given) class path, via
 * {@link LocalClusterProcesses} (state in {@code .kvlab/local/<cluster>/}, shared with {@code kvlab local}).
 */
public final class LocalBackend implements ClusterBackend {
  private static final String NAME = "local";
  private final String classpath;
  private final ClusterListener listener;
  private final List<LocalClusterProcesses> started = new CopyOnWriteArrayList<>();
  private final List<LocalClient> clients = new CopyOnWriteArrayList<>();

  /** @param classpath the class path of the client JVMs (servers run with this JVM's); null: this JVM's */
  public LocalBackend(String classpath, ClusterListener listener) {
    this.classpath = classpath == null ? System.getProperty("java.class.path") : classpath;
    this.listener = listener == null ? ClusterListener.NONE : listener;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ClusterConfig place(ClusterConfig planned, Path localDataDir) {
    return planned; // loopback ports and the local data directory, as planned
  }

  @Override
  public void deploy(ClusterRef cluster) throws BackendException {
    try {
      cluster.config().security().loadOrCreate();
    } catch (ClusterSecret.SecretException e) {
      throw new BackendException(e.getMessage(), e);
    }
  }

  @Override
  public void start(ClusterRef cluster, StartOptions options) throws BackendException {
    LocalClusterProcesses c;
    try {
      c = LocalClusterProcesses.start(cluster.file(), cluster.config(), options.singleJvm(),
          options.jvmOptions() == null ? LocalClusterProcesses.DEFAULT_JVM_OPTIONS : options.jvmOptions());
    } catch (LocalClusterProcesses.LaunchException e) {
      throw new BackendException("the cluster did not start: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new BackendException("the cluster did not start: " + e.getMessage() + ". Fix: check that "
          + LocalClusterProcesses.STATE + " is writable", e);
    }
    started.add(c);
    for (Process p : c.processes()) {
      listener.event(new ClusterEvent(NAME, "localhost", null, ClusterEvent.Kind.STARTED, "pid " + p.pid()));
    }
    long deadline = System.nanoTime() + options.waitLimit().toNanos();
    while (true) {
      if (options.cancelled().getAsBoolean()) {
        stopStarted(c);
        throw new BackendException("stopped (Ctrl-C) while the cluster was starting", null, true);
      }
      try {
        c.awaitConnected(Duration.ofSeconds(1));
        listener.event(new ClusterEvent(NAME, "localhost", null, ClusterEvent.Kind.RUNNING,
            c.config().servers().size() + " servers answer and are connected"));
        return;
      } catch (LocalClusterProcesses.LaunchException e) {
        if (!e.timedOut() || System.nanoTime() > deadline) {
          stopStarted(c);
          throw new BackendException("the cluster did not come up: " + (e.timedOut()
              ? "not all servers connected within " + options.waitLimit().toSeconds() + " s (logs in " + c.dir() + ")"
              : e.getMessage()), e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopStarted(c);
        throw new BackendException("interrupted while the cluster was starting", e, true);
      }
    }
  }

  private void stopStarted(LocalClusterProcesses c) {
    LocalClusterProcesses.stop(c.config(), Duration.ofSeconds(10));
    c.destroyForcibly();
    started.remove(c);
  }

  @Override
  public List<NodeState> status(ClusterRef cluster) {
    Path dir = LocalClusterProcesses.stateDir(cluster.config().name());
    List<NodeState> out = new ArrayList<>();
    for (LocalClusterProcesses.Probe p : LocalClusterProcesses.probes(cluster.config())) {
      long pid = 0;
      try {
        Path f = dir.resolve(p.server().id() + ".pid");
        if (Files.exists(f)) {
          long read = Long.parseLong(Files.readString(f).trim());
          pid = ProcessHandle.of(read).filter(ProcessHandle::isAlive).isPresent() ? read : 0;
        }
      } catch (IOException | NumberFormatException e) {
        // no pid known
      }
      out.add(new NodeState(p.server(), pid, p.status(), p.refusal()));
    }
    return out;
  }

  @Override
  public boolean stop(ClusterRef cluster, Duration grace) {
    int answered = LocalClusterProcesses.stop(cluster.config(), grace,
        line -> listener.event(new ClusterEvent(NAME, "localhost", null, ClusterEvent.Kind.KILLED, line)),
        refusal -> listener.event(new ClusterEvent(NAME, "localhost", null, ClusterEvent.Kind.FAILED, refusal)));
    for (LocalClusterProcesses c : started) {
      if (c.config().name().equals(cluster.config().name())) {
        c.destroyForcibly(); // those that did not stop in the grace time (stop has killed them already)
        started.remove(c);
      }
    }
    listener.event(new ClusterEvent(NAME, "localhost", null, ClusterEvent.Kind.STOPPED, answered + " servers answered"));
    return answered == cluster.config().servers().size();
  }

  @Override
  public void fetchLogs(ClusterRef cluster, Path localDir) throws BackendException {
    Path dir = LocalClusterProcesses.stateDir(cluster.config().name());
    try {
      Files.createDirectories(localDir);
      for (ServerSpec s : cluster.config().servers()) {
        Path name = dir.resolve(s.id() + ".log.name");
        Path log = dir.resolve(Files.exists(name) ? Files.readString(name).trim() : s.id() + ".log");
        if (Files.exists(log)) {
          Files.copy(log, localDir.resolve(s.id() + ".log"), StandardCopyOption.REPLACE_EXISTING);
          listener.event(new ClusterEvent(NAME, "localhost", s.id().toString(), ClusterEvent.Kind.LOG_FETCHED,
              localDir.resolve(s.id() + ".log").toString()));
        }
      }
    } catch (IOException e) {
      throw new BackendException("cannot copy the server logs to " + localDir + ": " + e.getMessage()
          + ". Fix: check that the directory is writable", e);
    }
  }

  @Override
  public void deleteData(ClusterRef cluster) {
    deleteTree(cluster.config().storage().dir());
  }

  static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // left behind
    }
  }

  @Override
  public ClientHandle startClient(ClusterRef cluster, ClientSpec spec) throws BackendException {
    try {
      Files.createDirectories(spec.localDir());
      for (String d : spec.dirs()) {
        Files.createDirectories(spec.localDir().resolve(d));
      }
      for (Map.Entry<String, Path> in : spec.inputs().entrySet()) {
        Path to = spec.localDir().resolve(in.getKey());
        if (!Files.exists(to) || !Files.isSameFile(in.getValue(), to)) {
          Files.copy(in.getValue(), to, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      List<String> cmd = new ArrayList<>();
      cmd.add(LocalClusterProcesses.javaCommand());
      cmd.addAll(spec.jvmOptions());
      cmd.addAll(List.of("-cp", classpath, spec.mainClass()));
      cmd.addAll(spec.argsWith(cluster.file().toAbsolutePath().toString()));
      Files.writeString(spec.localDir().resolve("command.txt"), String.join(" ", cmd) + "\n");
      Process p = new ProcessBuilder(cmd).directory(spec.localDir().toFile()).start();
      p.getOutputStream().close();
      LocalClient c = new LocalClient(spec, p);
      clients.add(c);
      listener.event(new ClusterEvent(NAME, "localhost", spec.name(), ClusterEvent.Kind.CLIENT_STARTED, "pid " + p.pid()));
      return c;
    } catch (IOException e) {
      throw new BackendException("cannot start client " + spec.name() + ": " + e.getMessage()
          + ". Fix: check the java command and that " + spec.localDir() + " is writable", e);
    }
  }

  @Override
  public void destroyStarted() {
    clients.forEach(LocalClient::kill);
    started.forEach(LocalClusterProcesses::destroyForcibly);
  }

  @Override
  public void close() {
    clients.clear();
  }

  /** A client JVM of this machine; its output pumped to files in its directory. */
  private final class LocalClient implements ClientHandle {
    private final ClientSpec spec;
    private final Process process;
    private final Thread outPump;
    private final Thread errPump;

    LocalClient(ClientSpec spec, Process process) {
      this.spec = spec;
      this.process = process;
      this.outPump = pump(process.getInputStream(), spec.localDir().resolve("stdout.txt"), null);
      this.errPump = pump(process.getErrorStream(), spec.localDir().resolve("stderr.txt"), spec.stderrLines());
    }

    @Override
    public String name() {
      return spec.name();
    }

    @Override
    public String host() {
      return "localhost";
    }

    @Override
    public boolean waitFor(long millis) throws InterruptedException {
      if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
        return false;
      }
      outPump.join(5_000);
      errPump.join(5_000);
      if (clients.remove(this)) {
        listener.event(new ClusterEvent(NAME, "localhost", spec.name(), ClusterEvent.Kind.CLIENT_EXITED,
            "exit code " + process.exitValue()));
      }
      return true;
    }

    @Override
    public int exitCode() {
      return process.isAlive() ? -1 : process.exitValue();
    }

    @Override
    public void kill() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }

    @Override
    public Map<String, byte[]> readNew(String dir, Map<String, Long> offsets, int maxBytes) {
      return FileTail.readNew(spec.localDir().resolve(dir), offsets, maxBytes);
    }

    @Override
    public void collect() {
      // its files are where they were written
    }

    private Thread pump(InputStream in, Path file, Consumer<String> lines) {
      Thread t = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
             OutputStream out = Files.newOutputStream(file)) {
          String line;
          while ((line = r.readLine()) != null) {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            if (lines != null) {
              lines.accept(line);
            }
          }
        } catch (IOException | RuntimeException e) {
          if (lines != null && !(e instanceof java.io.InterruptedIOException)) {
            lines.accept("(output of " + spec.name() + " lost: " + e.getMessage() + ")");
          }
        }
      }, "client-" + spec.name() + (lines != null ? "-err" : "-out"));
      t.setDaemon(true);
      t.start();
      return t;
    }
  }
}
