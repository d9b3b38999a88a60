package org.kvlab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The RPC benchmark: kvlab (one Eventual server, memory storage, durability none) against a raw Netty echo
 * with kvlab's framing and the same request/reply sizes, N closed-loop sessions over loopback. Every
 * measurement runs a fresh server JVM and a fresh client JVM; kvlab and echo alternate within each round
 * (the order flips every round), and the report gives medians over rounds and the kvlab/echo ratio of each
 * round. See docs/benchmarks/rpc.md.
 */
@Command(name = "rpc-benchmark", mixinStandardHelpOptions = true,
    description = "kvlab get/put round trips against a raw Netty echo of the same frame sizes")
public final class RpcBenchmark implements Callable<Integer> {
  @Option(names = "--sessions", split = ",", defaultValue = "1,8,32", description = "session counts (default ${DEFAULT-VALUE})")
  int[] sessionCounts;

  @Option(names = "--rounds", defaultValue = "3")
  int rounds;

  @Option(names = "--warmup", defaultValue = "5", description = "warm-up seconds per measurement")
  double warmupSeconds;

  @Option(names = "--measure", defaultValue = "10", description = "measured seconds per measurement")
  double measureSeconds;

  @Option(names = "--keys", defaultValue = "1000")
  int keys;

  @Option(names = "--value-bytes", defaultValue = "64")
  int valueBytes;

  @Option(names = "--client-threads", defaultValue = "0",
      description = "client event loop threads, both systems; 0 = ClientRuntime's default, min(4, cores)")
  int clientThreads;

  @Option(names = "--echo-modes", split = ",", defaultValue = "per-session,shared",
      description = "echo connection layouts: per-session (one connection per session) and/or shared "
          + "(all sessions on one connection, like kvlab's client); default ${DEFAULT-VALUE}")
  List<String> echoModes;

  @Option(names = "--jvm-opts", defaultValue = "-XX:+UseSerialGC -Xms1g -Xmx1g",
      description = "options of every spawned JVM (default ${DEFAULT-VALUE})")
  String jvmOpts;

  @Option(names = "--jfr-dir", description = "record JFR execution samples of the kvlab server and client JVMs here")
  Path jfrDir;

  @Option(names = "--jfr-echo", description = "with --jfr-dir: record the echo JVMs too")
  boolean jfrEcho;

  @Option(names = "--log-dir", description = "stderr of the spawned JVMs (default: a new temporary directory)")
  Path logDir;

  @Option(names = "--out-md", description = "write the Markdown report here")
  Path outMd;

  @Option(names = "--out-json", description = "write the JSON results here")
  Path outJson;

  @Option(names = "--command-line", hidden = true, description = "the command to quote in the report")
  String commandLine;

  private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private String javaBin;
  private String classpath;

  /** One measurement: a system (kvlab, echo/per-session, echo/shared) at N sessions in a round. */
  record Run(int round, int sessions, String system, JsonNode client, double serverCpuMicrosPerOp,
      double clientCpuMicrosPerOp, double serverSwitchesPerOp, double clientSwitchesPerOp, double otherCores,
      double stealPercent) {
    double opsPerSec() {
      return client.get("opsPerSec").asDouble();
    }

    long p(String pct) {
      return client.get("latencyMicros").get(pct).asLong();
    }
  }

  @Override
  public Integer call() throws Exception {
    javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    classpath = System.getProperty("java.class.path");
    if (logDir == null) {
      logDir = Files.createTempDirectory("kvlab-rpc-bench-");
    }
    Files.createDirectories(logDir);
    if (jfrDir != null) {
      Files.createDirectories(jfrDir);
    }
    for (String m : echoModes) {
      if (!m.equals("per-session") && !m.equals("shared")) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--echo-modes: per-session or shared, got " + m);
      }
    }
    FrameSizes sizes = FrameSizes.of(BenchClient.key(0), valueBytes);
    int threads = clientThreads > 0 ? clientThreads : BenchClient.defaultClientThreads();
    String started = LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
    String loadAtStart = readFirstLine("/proc/loadavg");
    int measurements = 0;
    for (int n : sessionCounts) {
      measurements += rounds * (1 + echoModes.size() - (n == 1 && echoModes.size() > 1 ? 1 : 0));
    }
    log("kvlab RPC benchmark: sessions %s, %d rounds, %.0f s warm-up + %.0f s measured each, %d measurements "
        + "(about %.0f min); echo request %d B, reply %d B; logs in %s", Arrays.toString(sessionCounts), rounds,
        warmupSeconds, measureSeconds, measurements, measurements * (warmupSeconds + measureSeconds + 3) / 60,
        sizes.echoRequest(), sizes.echoReply(), logDir);

    List<Run> runs = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      for (int n : sessionCounts) {
        List<String> systems = new ArrayList<>();
        systems.add("kvlab");
        for (String m : echoModes) {
          if (!(m.equals("shared") && n == 1 && echoModes.contains("per-session"))) { // identical at one session
            systems.add("echo/" + m);
          }
        }
        if (round % 2 == 0) {
          Collections.reverse(systems);
        }
        for (String system : systems) {
          Run run = measure(round, n, system, sizes, threads);
          runs.add(run);
          log("round %d, %2d sessions, %-16s %9.0f ops/s  p50 %5d us  p99 %6d us  CPU us/op server %5.1f client %5.1f"
              + "  ctx switches/op server %4.2f client %4.2f  other load %.2f cores, steal %.0f%%%s", round, n, system,
              run.opsPerSec(), run.p("p50"), run.p("p99"), run.serverCpuMicrosPerOp(), run.clientCpuMicrosPerOp(),
              run.serverSwitchesPerOp(), run.clientSwitchesPerOp(), run.otherCores(), run.stealPercent(), problems(run));
        }
      }
    }
    String loadAtEnd = readFirstLine("/proc/loadavg");

    ObjectNode report = json.createObjectNode();
    report.put("started", started);
    report.put("command", commandLine == null ? "" : commandLine);
    ObjectNode machine = report.putObject("machine");
    machine.put("cpu", cpuModel());
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("memory", memTotal());
    machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    machine.put("loadAverageAtStart", loadAtStart);
    machine.put("loadAverageAtEnd", loadAtEnd);
    ObjectNode cfg = report.putObject("config");
    cfg.putPOJO("sessions", sessionCounts);
    cfg.put("rounds", rounds);
    cfg.put("warmupSeconds", warmupSeconds);
    cfg.put("measureSeconds", measureSeconds);
    cfg.put("keys", keys);
    cfg.put("valueBytes", valueBytes);
    cfg.put("clientThreads", threads);
    cfg.putPOJO("echoModes", echoModes);
    cfg.put("jvmOpts", jvmOpts);
    ObjectNode fs = report.putObject("frameBytes");
    fs.put("note", "serialized kvlab Frame sizes, without the 4-byte length prefix both sides add; request id "
        + sizes.requestId());
    fs.put("getRequest", sizes.getRequest());
    fs.put("putRequest", sizes.putRequest());
    fs.put("getReply", sizes.getReply());
    fs.put("putReply", sizes.putReply());
    fs.put("echoRequest", sizes.echoRequest());
    fs.put("echoReply", sizes.echoReply());
    ArrayNode summary = report.putArray("summary");
    for (int n : sessionCounts) {
      ObjectNode s = summary.addObject();
      s.put("sessions", n);
      addSummary(s.putObject("kvlab"), select(runs, n, "kvlab"));
      for (String m : echoModes) {
        String system = echoSystem(m, n);
        ObjectNode e = s.putObject("echo/" + m);
        addSummary(e, select(runs, n, system));
        e.put("ratioMedianOfRounds", median(pairedRatios(runs, n, system)));
        e.put("ratioOfMedians", median(select(runs, n, "kvlab"), Run::opsPerSec)
            / median(select(runs, n, system), Run::opsPerSec));
        e.putPOJO("ratioPerRound", pairedRatios(runs, n, system));
      }
    }
    ArrayNode raw = report.putArray("runs");
    for (Run r : runs) {
      ObjectNode o = raw.addObject();
      o.put("round", r.round());
      o.put("sessions", r.sessions());
      o.put("system", r.system());
      o.put("serverCpuMicrosPerOp", r.serverCpuMicrosPerOp());
      o.put("clientCpuMicrosPerOp", r.clientCpuMicrosPerOp());
      o.put("serverContextSwitchesPerOp", r.serverSwitchesPerOp());
      o.put("clientContextSwitchesPerOp", r.clientSwitchesPerOp());
      o.put("otherLoadCores", r.otherCores());
      o.put("stealPercent", r.stealPercent());
      o.set("client", r.client());
    }

    String md = markdown(report, runs, sizes);
    if (outJson != null) {
      Files.writeString(outJson, json.writeValueAsString(report) + "\n");
    }
    if (outMd != null) {
      Files.writeString(outMd, md);
    }
    System.out.println(table(runs));
    return runs.stream().anyMatch(r -> !problems(r).isEmpty()) ? 3 : 0;
  }

  // ---------------------------------------------------------------------------------------------
  // One measurement

  private Run measure(int round, int n, String system, FrameSizes sizes, int threads) throws Exception {
    boolean kvlab = system.equals("kvlab");
    int port = freePort();
    String tag = (kvlab ? "kvlab" : system.replace('/', '-')) + "-s" + n + "-r" + round;
    List<String> server = jvm(tag + "-server", kvlab || jfrEcho);
    if (kvlab) {
      server.addAll(List.of(KvlabBenchServer.class.getName(), Integer.toString(port)));
    } else {
      server.addAll(List.of(RawEchoServer.class.getName(), Integer.toString(port), Integer.toString(sizes.echoReply())));
    }
    List<String> client = jvm(tag + "-client", kvlab || jfrEcho);
    client.addAll(List.of(BenchClient.class.getName(), "--system", kvlab ? "kvlab" : "echo", "--port",
        Integer.toString(port), "--sessions", Integer.toString(n), "--warmup-seconds", Double.toString(warmupSeconds),
        "--measure-seconds", Double.toString(measureSeconds), "--keys", Integer.toString(keys), "--value-bytes",
        Integer.toString(valueBytes), "--client-threads", Integer.toString(threads), "--sync-marks"));
    if (!kvlab) {
      client.addAll(List.of("--request-bytes", Integer.toString(sizes.echoRequest()), "--echo-connections",
          system.equals("echo/shared") ? "1" : "0"));
    }
    Process serverProc = new ProcessBuilder(server)
        .redirectError(logDir.resolve(tag + "-server.log").toFile()).start();
    try {
      BufferedReader serverOut = reader(serverProc);
      String ready = awaitLine(serverOut, "READY", Duration.ofSeconds(30));
      if (ready == null || !ready.startsWith("READY")) {
        throw new IllegalStateException(tag + ": server did not start (" + ready + "); see "
            + logDir.resolve(tag + "-server.log"));
      }
      Process clientProc = new ProcessBuilder(client)
          .redirectError(logDir.resolve(tag + "-client.log").toFile()).start();
      try {
        BufferedReader out = reader(clientProc);
        var ack = new java.io.PrintStream(clientProc.getOutputStream(), true, StandardCharsets.UTF_8);
        long[] cpuStart = null;
        long[] cpuEnd = null;
        long[] machineStart = null;
        long[] machineEnd = null;
        List<Map<String, Long>> switchesStart = null;
        List<Map<String, Long>> switchesEnd = null;
        JsonNode result = null;
        String line;
        while ((line = out.readLine()) != null) {
          if (line.equals("MARK measure-start")) {
            cpuStart = new long[] {cpuMicros(serverProc), cpuMicros(clientProc), System.nanoTime()};
            machineStart = machineCpu();
            switchesStart = List.of(contextSwitches(serverProc), contextSwitches(clientProc));
            ack.println("go");
          } else if (line.equals("MARK measure-end")) {
            cpuEnd = new long[] {cpuMicros(serverProc), cpuMicros(clientProc), System.nanoTime()};
            machineEnd = machineCpu();
            switchesEnd = List.of(contextSwitches(serverProc), contextSwitches(clientProc));
            ack.println("go");
          } else if (line.startsWith("RESULT ")) {
            result = json.readTree(line.substring("RESULT ".length()));
          }
        }
        if (!clientProc.waitFor(60, TimeUnit.SECONDS)) {
          clientProc.destroy();
        }
        if (result == null || cpuStart == null || cpuEnd == null) {
          throw new IllegalStateException(tag + ": the client produced no result (exit " + clientProc.exitValue()
              + "); see " + logDir.resolve(tag + "-client.log"));
        }
        long ops = Math.max(1, result.get("ops").asLong());
        // What else ran on the machine meanwhile: busy cores (from /proc/stat) minus the two measured JVMs.
        double otherCores = Double.NaN;
        double steal = Double.NaN;
        if (machineStart != null && machineEnd != null && machineEnd[3] > machineStart[3]) {
          double total = machineEnd[3] - machineStart[3];
          double busyCores = (machineEnd[0] - machineStart[0]) / total * Runtime.getRuntime().availableProcessors();
          double oursCores = (cpuEnd[0] - cpuStart[0] + cpuEnd[1] - cpuStart[1]) * 1000.0 / (cpuEnd[2] - cpuStart[2]);
          otherCores = Math.max(0, busyCores - oursCores);
          steal = 100.0 * (machineEnd[1] - machineStart[1]) / total;
        }
        return new Run(round, n, system, result, (cpuEnd[0] - cpuStart[0]) / (double) ops,
            (cpuEnd[1] - cpuStart[1]) / (double) ops, switchesBetween(switchesStart.get(0), switchesEnd.get(0)) / (double) ops,
            switchesBetween(switchesStart.get(1), switchesEnd.get(1)) / (double) ops, otherCores, steal);
      } finally {
        if (clientProc.isAlive()) {
          clientProc.destroy();
        }
      }
    } finally {
      serverProc.getOutputStream().close(); // the server stops when its stdin closes
      if (!serverProc.waitFor(20, TimeUnit.SECONDS)) {
        serverProc.destroy();
        serverProc.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private List<String> jvm(String tag, boolean jfr) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin);
    for (String o : jvmOpts.trim().split("\\s+")) {
      if (!o.isEmpty()) {
        cmd.add(o);
      }
    }
    if (jfrDir != null && jfr) {
      cmd.add("-XX:+UnlockDiagnosticVMOptions");
      cmd.add("-XX:+DebugNonSafepoints");
      cmd.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
          + jfrDir.resolve(tag + ".jfr").toAbsolutePath());
    }
    cmd.add("-cp");
    cmd.add(classpath);
    return cmd;
  }

  private static BufferedReader reader(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }

  /** The first line starting with {@code prefix} (JVM options such as JFR print lines of their own), or null at EOF. */
  private static String awaitLine(BufferedReader r, String prefix, Duration within) throws Exception {
    var f = CompletableFuture.supplyAsync(() -> {
      try {
        String line;
        while ((line = r.readLine()) != null && !line.startsWith(prefix)) {
          // skip
        }
        return line;
      } catch (IOException e) {
        return null;
      }
    });
    return f.get(within.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Voluntary plus involuntary context switches of each thread of {@code p}, by thread id (Linux; empty elsewhere). */
  private static Map<String, Long> contextSwitches(Process p) {
    Map<String, Long> byThread = new HashMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          long sum = 0;
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches") || line.startsWith("nonvoluntary_ctxt_switches")) {
              sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          byThread.put(task.getFileName().toString(), sum);
        } catch (IOException | RuntimeException e) {
          // thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return byThread;
    }
    return byThread;
  }

  /** Switches between two samples, over the threads alive at the end (a thread started meanwhile counts from 0). */
  private static long switchesBetween(Map<String, Long> start, Map<String, Long> end) {
    long sum = 0;
    for (Map.Entry<String, Long> e : end.entrySet()) {
      sum += Math.max(0, e.getValue() - start.getOrDefault(e.getKey(), 0L));
    }
    return sum;
  }

  /** From the first line of /proc/stat: {busy (user..softirq), steal, idle (idle + iowait), total} in ticks. */
  private static long[] machineCpu() {
    try {
      String[] f = readFirstLine("/proc/stat").split("\\s+");
      long user = Long.parseLong(f[1]);
      long nice = Long.parseLong(f[2]);
      long system = Long.parseLong(f[3]);
      long idle = Long.parseLong(f[4]);
      long iowait = Long.parseLong(f[5]);
      long irq = Long.parseLong(f[6]);
      long softirq = Long.parseLong(f[7]);
      long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
      long busy = user + nice + system + irq + softirq;
      return new long[] {busy, steal, idle + iowait, busy + steal + idle + iowait};
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static long cpuMicros(Process p) {
    return p.toHandle().info().totalCpuDuration().map(d -> d.toNanos() / 1000).orElse(0L);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(BenchCluster.HOST, 0));
      return s.getLocalPort();
    }
  }

  private static String problems(Run r) {
    StringBuilder b = new StringBuilder();
    if (r.client().path("errors").asLong() > 0) {
      b.append("  ERRORS: ").append(r.client().path("errors").asLong()).append(" (")
          .append(r.client().path("firstError").asText()).append(")");
    }
    if (r.client().path("getMisses").asLong() > 0) {
      b.append("  GET MISSES: ").append(r.client().path("getMisses").asLong());
    }
    return b.toString();
  }

  // ---------------------------------------------------------------------------------------------
  // Statistics

  private String echoSystem(String mode, int n) {
    return mode.equals("shared") && n == 1 && echoModes.contains("per-session") ? "echo/per-session" : "echo/" + mode;
  }

  private static List<Run> select(List<Run> runs, int n, String system) {
    return runs.stream().filter(r -> r.sessions() == n && r.system().equals(system)).toList();
  }

  /** kvlab/echo of each round (the two ran next to each other, so drift in machine speed cancels). */
  private static List<Double> pairedRatios(List<Run> runs, int n, String echo) {
    List<Double> ratios = new ArrayList<>();
    for (Run k : select(runs, n, "kvlab")) {
      for (Run e : select(runs, n, echo)) {
        if (e.round() == k.round()) {
          ratios.add(k.opsPerSec() / e.opsPerSec());
        }
      }
    }
    return ratios;
  }

  private static double median(List<Run> runs, ToDoubleFunction<Run> f) {
    return median(runs.stream().map(r -> f.applyAsDouble(r)).toList());
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static void addSummary(ObjectNode o, List<Run> runs) {
    o.put("opsPerSecMedian", median(runs, Run::opsPerSec));
    o.put("opsPerSecMin", runs.stream().mapToDouble(Run::opsPerSec).min().orElse(Double.NaN));
    o.put("opsPerSecMax", runs.stream().mapToDouble(Run::opsPerSec).max().orElse(Double.NaN));
    o.put("p50MicrosMedian", median(runs, r -> r.p("p50")));
    o.put("p99MicrosMedian", median(runs, r -> r.p("p99")));
    o.put("p999MicrosMedian", median(runs, r -> r.p("p999")));
    o.put("serverCpuMicrosPerOpMedian", median(runs, Run::serverCpuMicrosPerOp));
    o.put("clientCpuMicrosPerOpMedian", median(runs, Run::clientCpuMicrosPerOp));
    o.put("serverContextSwitchesPerOpMedian", median(runs, Run::serverSwitchesPerOp));
    o.put("clientContextSwitchesPerOpMedian", median(runs, Run::clientSwitchesPerOp));
    o.put("otherLoadCoresMedian", median(runs, Run::otherCores));
  }

  // ---------------------------------------------------------------------------------------------
  // Report

  private String table(List<Run> runs) {
    boolean several = echoModes.size() > 1;
    StringBuilder b = new StringBuilder("| sessions | kvlab ops/s |");
    StringBuilder rule = new StringBuilder("|---:|---:|");
    for (String mode : echoModes) {
      String label = several ? "echo (" + layout(mode) + ")" : "echo";
      b.append(' ').append(label).append(" ops/s | ratio kvlab/").append(label).append(" |");
      rule.append("---:|---:|");
    }
    b.append(" kvlab p50 / p99 (µs) |");
    rule.append("---:|");
    for (String mode : echoModes) {
      b.append(' ').append(several ? "echo (" + layout(mode) + ")" : "echo").append(" p50 / p99 (µs) |");
      rule.append("---:|");
    }
    b.append('\n').append(rule).append('\n');
    for (int n : sessionCounts) {
      List<Run> k = select(runs, n, "kvlab");
      b.append(String.format(Locale.ROOT, "| %d | %,.0f |", n, median(k, Run::opsPerSec)));
      for (String mode : echoModes) {
        String system = echoSystem(mode, n);
        b.append(String.format(Locale.ROOT, " %,.0f | %.2f |", median(select(runs, n, system), Run::opsPerSec),
            median(pairedRatios(runs, n, system))));
      }
      b.append(String.format(Locale.ROOT, " %.0f / %.0f |", median(k, r -> r.p("p50")), median(k, r -> r.p("p99"))));
      for (String mode : echoModes) {
        List<Run> e = select(runs, n, echoSystem(mode, n));
        b.append(String.format(Locale.ROOT, " %.0f / %.0f |", median(e, r -> r.p("p50")), median(e, r -> r.p("p99"))));
      }
      b.append('\n');
    }
    return b.toString();
  }

  private static String layout(String mode) {
    return mode.equals("shared") ? "1 conn" : "N conns";
  }

  private String markdown(ObjectNode report, List<Run> runs, FrameSizes sizes) {
    JsonNode m = report.get("machine");
    String primary = echoModes.get(0);
    StringBuilder b = new StringBuilder();
    b.append("# kvlab RPC benchmark, ").append(report.get("started").asText()).append("\n\n");
    if (commandLine != null) {
      b.append("Command: `").append(commandLine).append("`\n\n");
    }
    b.append("Machine: ").append(m.get("cpu").asText()).append(", ").append(m.get("cores").asInt()).append(" cores, ")
        .append(m.get("memory").asText()).append(", ").append(m.get("os").asText()).append(", ")
        .append(m.get("java").asText()).append(". Load average at start ").append(m.get("loadAverageAtStart").asText())
        .append(", at end ").append(m.get("loadAverageAtEnd").asText()).append(".\n\n");
    b.append(String.format(Locale.ROOT, "Workload: one Eventual server (memory storage, durability none) in its own JVM; "
        + "N closed-loop sessions of one `ClientRuntime` (%d event loop threads) in another JVM, each doing blocking "
        + "get/put 50/50 on %d keys with %d-byte values. Echo: a raw Netty server (same framing, one event loop) "
        + "answering each %d-byte request with a %d-byte reply, N closed-loop sessions over %s. "
        + "Each measurement: fresh server and client JVMs (`%s`), %.0f s warm-up, %.0f s measured; %d rounds, "
        + "kvlab and echo alternating (order flipped every round).%n%n",
        report.get("config").get("clientThreads").asInt(), keys, valueBytes, sizes.echoRequest(), sizes.echoReply(),
        echoModes.size() > 1 ? "one connection per session and, separately, over one shared connection"
            : primary.equals("shared") ? "one shared connection" : "one connection per session", jvmOpts, warmupSeconds,
        measureSeconds, rounds));
    b.append(String.format(Locale.ROOT, "kvlab frame sizes (serialized `Frame`, plus a 4-byte length prefix on the wire): "
        + "get request %d B, put request %d B, get reply %d B, put reply %d B; echo request = %d B, echo reply = %d B "
        + "(averages).%n%n", sizes.getRequest(), sizes.putRequest(), sizes.getReply(), sizes.putReply(),
        sizes.echoRequest(), sizes.echoReply()));
    b.append("## Results (medians of ").append(rounds).append(" rounds; ratio = median of the per-round kvlab/echo ratios)\n\n");
    if (echoModes.size() > 1) {
      b.append("Echo layouts: *N conns* = one connection per session (each session its own socket); *1 conn* = all "
          + "sessions pipelined on one connection, the layout kvlab's `ClientRuntime` uses (one connection per server, "
          + "shared by all sessions). At 1 session they are the same measurement.\n\n");
    }
    b.append(table(runs)).append("\n");
    b.append("Cost per operation (medians; CPU = user + system time of all threads of the JVM, context switches = "
        + "voluntary + involuntary switches of all its threads, each divided by the operations completed):\n\n");
    b.append("| sessions | system | server CPU µs/op | client CPU µs/op | server ctx switches/op | client ctx switches/op "
        + "| p99.9 µs | ops/s min–max | other load (cores) |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (JsonNode s : report.get("summary")) {
      s.fields().forEachRemaining(f -> {
        if (f.getValue().isObject()) {
          JsonNode v = f.getValue();
          b.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %.1f | %.2f | %.2f | %.0f | %,.0f–%,.0f | %.2f |%n",
              s.get("sessions").asInt(), f.getKey(), v.get("serverCpuMicrosPerOpMedian").asDouble(),
              v.get("clientCpuMicrosPerOpMedian").asDouble(), v.get("serverContextSwitchesPerOpMedian").asDouble(),
              v.get("clientContextSwitchesPerOpMedian").asDouble(), v.get("p999MicrosMedian").asDouble(),
              v.get("opsPerSecMin").asDouble(), v.get("opsPerSecMax").asDouble(), v.get("otherLoadCoresMedian").asDouble()));
        }
      });
    }
    b.append("\n## Every measurement\n\n");
    b.append("*Other load* = busy cores of the whole machine during the window (from /proc/stat) minus the two measured "
        + "JVMs: anything above a few hundredths means something else competed for the 2 cores; *steal* = time the "
        + "hypervisor gave the vCPUs to someone else.\n\n");
    b.append("| round | sessions | system | ops/s | p50 µs | p99 µs | p99.9 µs | max µs | server CPU µs/op "
        + "| client CPU µs/op | server ctx sw/op | client ctx sw/op | other load (cores) | steal % | errors |\n");
    b.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Run r : runs) {
      b.append(String.format(Locale.ROOT,
          "| %d | %d | %s | %,.0f | %d | %d | %d | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.0f | %d |%n",
          r.round(), r.sessions(), r.system(), r.opsPerSec(), r.p("p50"), r.p("p99"), r.p("p999"), r.p("max"),
          r.serverCpuMicrosPerOp(), r.clientCpuMicrosPerOp(), r.serverSwitchesPerOp(), r.clientSwitchesPerOp(),
          r.otherCores(), r.stealPercent(), r.client().path("errors").asLong()));
    }
    return b.toString();
  }

  private static String readFirstLine(String file) {
    try {
      return Files.readAllLines(Path.of(file)).get(0).trim();
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
          .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  private static String memTotal() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
          .findFirst().map(l -> {
            long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
            return String.format(Locale.ROOT, "%.0f GB RAM", kb / 1024.0 / 1024.0);
          }).orElse("unknown RAM");
    } catch (IOException | RuntimeException e) {
      return "unknown RAM";
    }
  }

  private static void log(String format, Object... args) {
    System.err.println(String.format(Locale.ROOT, format, args));
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new RpcBenchmark()).execute(args));
  }
}
