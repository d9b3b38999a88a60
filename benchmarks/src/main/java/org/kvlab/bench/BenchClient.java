package org.kvlab.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.kvlab.api.Session;
import org.kvlab.protocols.eventual.Eventual;
import org.kvlab.runtime.ClientRuntime;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load generator of one measurement, run in its own JVM by {@link RpcBenchmark}: N closed-loop sessions
 * against a kvlab Eventual server (50/50 get/put on a fixed key set, fixed-size values) or against the
 * {@link RawEchoServer}. Prints {@code MARK measure-start}, {@code MARK measure-end} (the harness samples CPU
 * times there) and finally one {@code RESULT <json>} line.
 */
@Command(name = "bench-client", mixinStandardHelpOptions = true)
public final class BenchClient implements Callable<Integer> {
  @Option(names = "--system", required = true, description = "kvlab or echo")
  String system;

  @Option(names = "--port", required = true)
  int port;

  @Option(names = "--sessions", required = true)
  int sessions;

  @Option(names = "--warmup-seconds", defaultValue = "5")
  double warmupSeconds;

  @Option(names = "--measure-seconds", defaultValue = "10")
  double measureSeconds;

  @Option(names = "--keys", defaultValue = "1000")
  int keys;

  @Option(names = "--value-bytes", defaultValue = "64")
  int valueBytes;

  @Option(names = "--client-threads", defaultValue = "0",
      description = "client event loop threads; 0 = ClientRuntime's default, min(4, cores)")
  int clientThreads;

  @Option(names = "--request-bytes", defaultValue = "0", description = "echo: request frame size")
  int requestBytes;

  @Option(names = "--echo-connections", defaultValue = "0", description = "echo: connections; 0 = one per session")
  int echoConnections;

  @Option(names = "--sync-marks", description = "after each MARK line, wait for a line on stdin (the harness samples "
      + "CPU and context switches of both processes meanwhile, while every thread is still alive)")
  boolean syncMarks;

  private final java.io.BufferedReader stdin =
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));

  static final long TIMEOUT_MILLIS = ClientRuntime.DEFAULT_TIMEOUT.toMillis();

  static String key(int i) {
    return String.format("user%06d", i);
  }

  static int defaultClientThreads() {
    return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())); // as ClientRuntime's default
  }

  @Override
  public Integer call() throws Exception {
    int threads = clientThreads > 0 ? clientThreads : defaultClientThreads();
    Duration warmup = Duration.ofMillis(Math.round(warmupSeconds * 1000));
    Duration measure = Duration.ofMillis(Math.round(measureSeconds * 1000));
    Runnable start = () -> mark("measure-start");
    Runnable end = () -> mark("measure-end");
    ObjectNode out = new ObjectMapper().createObjectNode();
    out.put("system", system);
    out.put("sessions", sessions);
    out.put("clientThreads", threads);
    ClosedLoop.Result r;
    switch (system) {
      case "kvlab" -> {
        String[] keyNames = new String[keys];
        for (int i = 0; i < keys; i++) {
          keyNames[i] = key(i);
        }
        byte[] bytes = new byte[valueBytes];
        new Random(42).nextBytes(bytes);
        ByteString value = ByteString.copyFrom(bytes);
        LongAdder misses = new LongAdder();
        try (ClientRuntime runtime = new ClientRuntime(BenchCluster.config(port), new Eventual(), threads)) {
          try (Session loader = runtime.openSession(0)) {
            for (String k : keyNames) {
              loader.put(k, value);
            }
          }
          List<Session> s = new ArrayList<>();
          for (int i = 0; i < sessions; i++) {
            s.add(runtime.openSession(0));
          }
          r = ClosedLoop.run(sessions, (session, random) -> {
            String k = keyNames[random.nextInt(keyNames.length)];
            if (random.nextBoolean()) {
              s.get(session).put(k, value);
            } else if (s.get(session).get(k).isEmpty()) {
              misses.increment();
            }
          }, warmup, measure, start, end);
        }
        out.put("connections", 1);
        out.put("getMisses", misses.sum());
      }
      case "echo" -> {
        int connections = echoConnections > 0 ? Math.min(echoConnections, sessions) : sessions;
        try (RawEchoClient client = new RawEchoClient(BenchCluster.HOST, port, threads, connections, requestBytes)) {
          r = ClosedLoop.run(sessions, (session, random) -> client.call(session % connections, TIMEOUT_MILLIS),
              warmup, measure, start, end);
        }
        out.put("connections", connections);
        out.put("requestBytes", requestBytes);
      }
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "--system must be kvlab or echo");
    }
    out.put("ops", r.ops());
    out.put("errors", r.errors());
    if (r.firstError() != null) {
      out.put("firstError", r.firstError());
    }
    out.put("seconds", r.seconds());
    out.put("opsPerSec", r.opsPerSecond());
    Histogram h = r.latencyMicros();
    ObjectNode lat = out.putObject("latencyMicros");
    lat.put("mean", h.getMean());
    lat.put("p50", h.getValueAtPercentile(50));
    lat.put("p90", h.getValueAtPercentile(90));
    lat.put("p99", h.getValueAtPercentile(99));
    lat.put("p999", h.getValueAtPercentile(99.9));
    lat.put("max", h.getMaxValue());
    System.out.println("RESULT " + out);
    System.out.flush();
    return 0;
  }

  private void mark(String what) {
    System.out.println("MARK " + what);
    System.out.flush();
    if (syncMarks) {
      try {
        stdin.readLine();
      } catch (java.io.IOException e) {
        // the harness went away; carry on
      }
    }
  }

  public static void main(String[] args) {
    int code = new CommandLine(new BenchClient()).execute(args);
    System.exit(code);
  }
}
