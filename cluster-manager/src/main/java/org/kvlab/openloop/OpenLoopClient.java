package org.kvlab.openloop;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.api.Session;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;

/**
 * The open-loop load generator as a client process of its own, started by {@link OpenLoopBench} through the
 * sweep's {@link org.kvlab.cluster.ClusterBackend} (on this machine, or on a client host of datacenter 0 over SSH
 * or on EC2): {@code OpenLoopClient <cluster file> plan.json}. It connects to the cluster, writes the records,
 * primes, and offers each rate of the plan in turn (a full collection of itself, and of the servers whose PIDs
 * the plan lists, before each when the plan says so). One process runs the whole sweep of a cluster, so its JIT
 * and heap carry from rate to rate as in one JVM; each rate's outcome is reported as soon as it is measured, as one
 * line on standard error ({@link #POINT} and the {@link Measured} as JSON; the backend hands the bench each line as it
 * comes), and written to its working directory: {@code points.jsonl} (one line per rate) and {@code rate-<k>.hdr}
 * (the latency histogram, HdrHistogram's compressed encoding in Base64). {@code host.txt} names the host and its
 * addresses. Other lines starting with {@link #PROGRESS} are progress for the bench to pass on.
 */
public final class OpenLoopClient {
  /** Prefix of a measured rate's line on standard error. */
  static final String POINT = "kvlab-openloop point ";
  /** Prefix of a progress line on standard error. */
  static final String PROGRESS = "kvlab-openloop progress ";

  /**
   * What the generator does: the workload, the rates in order, the phases' lengths, its sessions and threads, and
   * whether to collect before each rate ({@code serverPids}: servers on the generator's machine to collect with
   * jcmd; empty: only the generator itself).
   */
  public record Plan(String cluster, OpenLoopLoad.Workload workload, List<Double> rates, long primeNanos,
      long warmupNanos, long durationNanos, int sessions, int clientThreads, boolean collect, List<Long> serverPids) {
    public Plan {
      rates = List.copyOf(rates);
      serverPids = List.copyOf(serverPids);
    }
  }

  /** One rate's outcome: its point (no server pauses: the bench adds them), the measured window's wall-clock bounds. */
  public record Measured(OpenLoopBench.Point point, long windowFromMillis, long windowToMillis) {}

  static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

  private OpenLoopClient() {}

  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: OpenLoopClient <cluster file> <plan.json>");
      System.exit(2);
    }
    int code = 0;
    try {
      run(Path.of(args[0]), JSON.readValue(Path.of(args[1]).toFile(), Plan.class), Path.of("."), System.err);
    } catch (Exception | Error e) {
      e.printStackTrace();
      code = 1;
    }
    System.exit(code); // the client runtime's threads would keep the JVM
  }

  /** Runs {@code plan} against the cluster of {@code clusterFile}; files into {@code dir}, lines to {@code err}. */
  static void run(Path clusterFile, Plan plan, Path dir, PrintStream err) throws Exception {
    ClusterConfig config = ClusterConfig.load(clusterFile);
    Protocol protocol = Protocols.byName(config.protocol());
    Files.writeString(dir.resolve("host.txt"), hostLine() + "\n");
    Files.deleteIfExists(dir.resolve("points.jsonl"));
    try (ClientRuntime rt = new ClientRuntime(OpenLoopBench.forLoadGenerator(config), protocol, plan.clientThreads())) {
      List<Session> sessions = new ArrayList<>();
      int dcs = config.topology().datacenters();
      boolean objects = plan.workload().objectsPerReplica() > 0;
      if (objects && plan.sessions() < dcs) {
        throw new IllegalArgumentException("objectsperreplica spreads the sessions over every datacenter, and "
            + plan.sessions() + " sessions cannot cover " + dcs + ". Fix: set sessions to " + dcs + " or more");
      }
      for (int i = 0; i < plan.sessions(); i++) {
        sessions.add(rt.openSession(objects ? i % dcs : 0)); // the consensus workload: proposers at every replica
      }
      OpenLoopLoad.load(sessions, plan.workload());
      if (plan.primeNanos() > 0) {
        // JIT warm-up of the fresh server and client JVMs, at the lowest rate, not measured: otherwise the
        // first rate of the sweep measures the compilers
        double lowest = plan.rates().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        err.println(PROGRESS + String.format("priming %s at %,.0f/s for %s (not measured)", protocol.name(), lowest,
            Duration.ofNanos(plan.primeNanos())));
        OpenLoopLoad.run(sessions, plan.workload(), lowest, 0, plan.primeNanos(), Duration.ofSeconds(15).toNanos());
      }
      for (int k = 0; k < plan.rates().size(); k++) {
        double rate = plan.rates().get(k);
        if (plan.collect()) {
          for (String failure : FullCollections.collect(plan.serverPids(), Duration.ofSeconds(30))) {
            err.println(PROGRESS + "warning: " + failure);
          }
        }
        OpenLoopLoad.Outcome o = OpenLoopLoad.run(sessions, plan.workload(), rate, plan.warmupNanos(),
            plan.durationNanos(), Duration.ofSeconds(15).toNanos());
        Histogram h = o.latency();
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        h.encodeIntoCompressedByteBuffer(buf);
        buf.flip();
        byte[] encoded = new byte[buf.remaining()];
        buf.get(encoded);
        Files.writeString(dir.resolve("rate-" + k + ".hdr"), Base64.getEncoder().encodeToString(encoded) + "\n");
        String line = JSON.writeValueAsString(new Measured(point(protocol.name(), plan.cluster(), o),
            o.windowFromMillis(), o.windowToMillis()));
        Files.writeString(dir.resolve("points.jsonl"), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        err.println(POINT + line);
      }
    }
  }

  /** A rate's point from its outcome (server pauses unknown here). */
  static OpenLoopBench.Point point(String protocol, String cluster, OpenLoopLoad.Outcome o) {
    Histogram h = o.latency();
    boolean any = h.getTotalCount() > 0;
    return new OpenLoopBench.Point(protocol, cluster, o.targetRate(), o.achievedOpsPerSec(), o.measured(), o.errors(),
        o.abandoned(), any ? h.getValueAtPercentile(50) : Double.NaN, any ? h.getValueAtPercentile(90) : Double.NaN,
        any ? h.getValueAtPercentile(99) : Double.NaN, any ? h.getValueAtPercentile(99.9) : Double.NaN,
        any ? h.getMaxValue() : Double.NaN, o.perSecond(), o.firstError(), null, o.generator());
  }

  /** "host &lt;name&gt; addresses &lt;a&gt; &lt;b&gt; ...": where this process runs (its network namespace's addresses). */
  static String hostLine() {
    List<String> addresses = new ArrayList<>();
    try {
      for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        n.inetAddresses().filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress())
            .forEach(a -> addresses.add(a.getHostAddress()));
      }
    } catch (IOException e) {
      addresses.add("unknown (" + e.getMessage() + ")");
    }
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      name = "unknown";
    }
    return "host " + name + " addresses " + String.join(" ", addresses);
  }
}
