package org.kvlab.cluster.ec2;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClientHandle;
import org.kvlab.cluster.ClientSpec;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.NodeState;
import org.kvlab.cluster.StartOptions;
import org.kvlab.cluster.ssh.Distribution;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshConnection;
import org.kvlab.cluster.ssh.SshException;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.cluster.ssh.KnownHostsFile;
import org.kvlab.cluster.ssh.SshSettings;
import org.kvlab.config.ClusterConfig;

/**
 * The EC2 backend: {@link #up} creates the cluster's tagged instances with {@link Ec2Provisioner}, waits until each
 * answers SSH (with the key {@code up} wrote) and has Java, and hands the hosts to an {@link SshBackend} (datacenter
 * d's servers and clients on its instances), which does the rest. {@link #close()} deletes everything carrying the
 * cluster's tags ({@link Ec2Provisioner#down}) unless {@link Options#keep()}.
 */
public final class Ec2Backend implements ClusterBackend {
  /**
   * @param keep leave the instances running at {@link #close()} (they still terminate themselves at their expiry)
   * @param sshWait how long an instance may take to answer SSH and have Java after it runs
   * @param sshPort the port SSH is reached at (22; tests point it at their sshd hosts' port)
   * @param basePort the servers' first port
   * @param remoteDir kvlab's directory on the instances
   * @param jvmOptions server JVM options, or null for the SSH default
   */
  public record Options(boolean keep, Duration sshWait, int sshPort, int basePort, String remoteDir, String jvmOptions) {
    public static Options defaults() {
      return new Options(false, Duration.ofMinutes(10), Ec2Provisioner.SSH_PORT, SshHosts.DEFAULT_BASE_PORT,
          SshSettings.DEFAULT_REMOTE_DIR, null);
    }

    public Options withKeep(boolean k) {
      return new Options(k, sshWait, sshPort, basePort, remoteDir, jvmOptions);
    }
  }

  private final Ec2Provisioner provisioner;
  private final Distribution dist;
  private final ClusterListener listener;
  private final Options options;
  private final Path stateRoot;
  private volatile Ec2Cluster up;
  private volatile List<String> regions = List.of();
  private volatile SshBackend ssh;
  private volatile boolean closed;

  /** @param stateRoot where the provisioner keeps each cluster's key ({@code <stateRoot>/<cluster>/}) */
  public Ec2Backend(Ec2Provisioner provisioner, Path stateRoot, Distribution dist, ClusterListener listener,
      Options options) {
    this.provisioner = provisioner;
    this.stateRoot = stateRoot;
    this.dist = dist;
    this.listener = listener == null ? ClusterListener.NONE : listener;
    this.options = options;
  }

  /** An {@link Ec2Listener} that passes the provisioner's events on as cluster events. */
  public static Ec2Listener forward(ClusterListener l) {
    return new Ec2Listener() {
      @Override
      public void progress(String message) {
        l.progress(message);
      }

      @Override
      public void created(Ec2Resource r) {
        l.event(new ClusterEvent("ec2", r.region(), null, ClusterEvent.Kind.PROVISIONED, r.toString()));
      }

      @Override
      public void deleted(Ec2Resource r) {
        l.event(new ClusterEvent("ec2", r.region(), null, ClusterEvent.Kind.DELETED, r.toString()));
      }
    };
  }

  /**
   * Creates the instances of {@code shape} (its name and datacenters; see {@link Ec2Provisioner#up}), waits until
   * SSH answers on each and Java runs there, and makes the SSH backend every other call goes to. On failure, what
   * was created is deleted (unless {@link Options#keep()}) before the exception is thrown.
   */
  public Ec2Cluster up(ClusterConfig shape, Ec2Spec spec, CallerAddress caller, AddressMapper mapper)
      throws BackendException {
    try {
      regions = distinctRegions(shape, spec);
      up = provisioner.up(shape, spec, caller, mapper);
    } catch (Ec2Error e) {
      throw new BackendException(e.getMessage(), e);
    }
    boolean ok = false;
    try {
      SshSettings settings = SshSettings.withKey(spec.user(), up.keyFile(),
              stateRoot.resolve(shape.name()).resolve("known_hosts"))
          .withPort(options.sshPort()).withHostKeys(SshSettings.HostKeyPolicy.ACCEPT_NEW)
          .withRemoteDir(options.remoteDir())
          .withTimeouts(Duration.ofSeconds(10), SshSettings.DEFAULT_COMMAND_TIMEOUT)
          // an instance's public address (its host in the cluster file) is translated by AWS and is on none of
          // its interfaces: its servers listen on all of them; the security group admits only the cluster's
          // own instances and the caller, and every peer and control connection proves the cluster secret
          .withListen("0.0.0.0");
      if (options.jvmOptions() != null) {
        settings = settings.withJvmOptions(options.jvmOptions());
      }
      List<SshHosts.Datacenter> dcs = new ArrayList<>();
      for (int d = 0; d < shape.topology().datacenters(); d++) {
        final int dc = d;
        List<String> hs = up.hosts().stream().filter(h -> h.datacenter() == dc).map(Ec2Host::host).toList();
        if (hs.isEmpty()) {
          throw new BackendException("EC2 returned no instance for datacenter " + d + ". Fix: run again; if it"
              + " persists, check the instance limits of region " + spec.region(d));
        }
        dcs.add(new SshHosts.Datacenter(hs, hs));
      }
      SshHosts hosts = new SshHosts(settings, options.basePort(), dcs);
      awaitSsh(hosts);
      ssh = new SshBackend("ec2", hosts, dist, listener) { };
      ok = true;
      return up;
    } finally {
      if (!ok) {
        close();
      }
    }
  }

  private static List<String> distinctRegions(ClusterConfig shape, Ec2Spec spec) {
    List<String> out = new ArrayList<>();
    for (int d = 0; d < shape.topology().datacenters(); d++) {
      if (!out.contains(spec.region(d))) {
        out.add(spec.region(d));
      }
    }
    return out;
  }

  /** Waits until every host answers SSH with the cluster's key and runs {@code java -version}. */
  private void awaitSsh(SshHosts hosts) throws BackendException {
    long deadline = System.nanoTime() + options.sshWait().toNanos();
    KnownHostsFile known;
    try {
      known = new KnownHostsFile(hosts.settings().knownHosts(), hosts.settings().hostKeys(),
          (host, type, fp) -> listener.event(new ClusterEvent("ec2", host, null, ClusterEvent.Kind.NEW_HOST_KEY,
              type + " " + fp + " recorded in " + hosts.settings().knownHosts())));
    } catch (SshException e) {
      throw new BackendException(e.getMessage(), e);
    }
    for (String host : hosts.allHosts()) {
      listener.progress("waiting until " + host + " answers SSH and has Java");
      String last = "";
      while (true) {
        try (SshConnection c = SshConnection.open(hosts.settings().sshAddress(host), hosts.settings(), known)) {
          SshConnection.ExecResult r = c.exec(hosts.settings().java() + " -version 2>&1");
          if (r.ok()) {
            listener.event(new ClusterEvent("ec2", host, null, ClusterEvent.Kind.CONNECTED, "SSH answers, Java is there"));
            break;
          }
          last = "no Java yet (the user data installs it): " + r.stdout().strip();
        } catch (SshException e) {
          last = e.getMessage();
        }
        if (System.nanoTime() > deadline) {
          throw new BackendException(host + " did not answer SSH with Java within " + options.sshWait().toSeconds()
              + " s; last: " + last + ". Fix: check the security group lets your address in on port " + options.sshPort()
              + ", the instance's console output (aws ec2 get-console-output), and that the AMI's user is right");
        }
        try {
          Thread.sleep(2000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BackendException("interrupted while waiting for SSH", e, true);
        }
      }
    }
  }

  /** The cluster {@link #up} made, or null. */
  public Ec2Cluster cluster() {
    return up;
  }

  private SshBackend ssh() throws BackendException {
    SshBackend s = ssh;
    if (s == null) {
      throw new BackendException("the EC2 instances are not up. Fix: call up() before using the EC2 backend");
    }
    return s;
  }

  @Override
  public String name() {
    return "ec2";
  }

  @Override
  public ClusterConfig place(ClusterConfig planned, Path localDataDir) throws BackendException {
    if (up != null && !planned.name().equals(up.cluster())) {
      throw new BackendException("the instances were made for cluster " + up.cluster() + ", not " + planned.name()
          + ". Fix: use one EC2 backend per cluster name");
    }
    return ssh().place(planned, localDataDir);
  }

  @Override
  public void deploy(ClusterRef cluster) throws BackendException {
    ssh().deploy(cluster);
  }

  @Override
  public void start(ClusterRef cluster, StartOptions o) throws BackendException {
    ssh().start(cluster, o);
  }

  @Override
  public List<NodeState> status(ClusterRef cluster) {
    SshBackend s = ssh;
    return s == null ? List.of() : s.status(cluster);
  }

  @Override
  public boolean stop(ClusterRef cluster, Duration grace) throws BackendException {
    return ssh().stop(cluster, grace);
  }

  @Override
  public void fetchLogs(ClusterRef cluster, Path localDir) throws BackendException {
    ssh().fetchLogs(cluster, localDir);
  }

  @Override
  public void deleteData(ClusterRef cluster) {
    SshBackend s = ssh;
    if (s != null) {
      s.deleteData(cluster);
    }
  }

  @Override
  public ClientHandle startClient(ClusterRef cluster, ClientSpec spec) throws BackendException {
    return ssh().startClient(cluster, spec);
  }

  /** Per instance's host: its type, region, id and market (spot or on-demand). */
  @Override
  public Map<String, String> hostDetails() {
    Ec2Cluster c = up;
    Map<String, String> out = new TreeMap<>();
    if (c != null) {
      for (Ec2Host h : c.hosts()) {
        Ec2Instance i = h.instance();
        out.put(h.host(), i.type() + " in " + i.region() + ", " + i.id() + (i.spot() ? ", spot" : ", on-demand"));
      }
    }
    return out;
  }

  @Override
  public void destroyStarted() {
    SshBackend s = ssh;
    if (s != null) {
      s.destroyStarted();
    }
  }

  /** Closes the SSH side and, unless {@link Options#keep()}, deletes every resource tagged with the cluster. */
  @Override
  public synchronized void close() throws BackendException {
    if (closed) {
      return;
    }
    closed = true;
    SshBackend s = ssh;
    if (s != null) {
      s.close();
    }
    Ec2Cluster c = up;
    if (c == null) {
      return;
    }
    if (options.keep()) {
      listener.progress("keeping the instances of " + c.cluster() + " (--keep); they terminate themselves at "
          + c.expires() + ", or run kvlab ec2 down");
      return;
    }
    listener.progress("deleting the EC2 resources of " + c.cluster());
    try {
      provisioner.down(c.cluster(), c.owner(), regions);
    } catch (Ec2Error e) {
      throw new BackendException("could not delete every EC2 resource of " + c.cluster() + ": " + e.getMessage(), e);
    }
  }
}
