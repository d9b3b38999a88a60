package org.kvlab.protocols.conveyorbelt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvlab.api.Params;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.workload.micro.MicroProcedures;

/**
 * Seed 004's WAN evaluation in shape, in the simulator (virtual time; no fault): the Conveyor Belt on the sites of the
 * seed's Table 2 (Germany, Japan, US, Brazil, Australia; round trips 92 to 322 ms; inside a site the simulator's
 * LAN, not the seed's 20 ms).
 *
 * <ul>
 *   <li><b>Figs 5 and 6</b> (§7.3): the micro-benchmark ({@code operations=micro}, every operation 5 ms of service at
 *       its server: {@code serviceMicros=5000}) on 3 servers (G, J, US), local ratio 0 to 90%. Saturation throughput =
 *       the most operations per second completed over closed-loop loads of 1 to {@code maxSessions} sessions per
 *       site (no think time); latency of local and of global operations at light load (1 session per site) and at
 *       the saturating load.
 *   <li><b>Table 3</b> (§7.2): the online store ({@code operations=store}) at light load (1 session per site, 50 ms
 *       think time) on 2, 3 and 5 sites added in the seed's order (G, J, US, B, A), clients at the servers' sites:
 *       the mean latency of an operation, with carts routed by hash (the {@code store} workload) and with the seed's
 *       server-specific ids (each session's carts minted at its site, {@link SiteStore}). The seed's two baselines,
 *       simulated: <b>centralized</b>, one Conveyor Belt server in G (a ring of one: it executes every operation at
 *       once, nothing is replicated) and one client at each of the five sites, each site's client in its own run
 *       (the simulator puts a session in a server's datacenter, so the site's round trip to G is that datacenter's
 *       own latency), the mean over the sites; <b>read-only</b>, the Conveyor Belt on the same sites with
 *       {@link #READ_ONLY} (no partitioning parameter: every operation that writes is global, the read-only one runs at
 *       the client's server at once). The seed's TPC-W requests make several operations and database round trips, so
 *       only the ratios compare.
 * </ul>
 *
 * <p>{@code scripts/bench/eval conveyorbelt ConveyorBeltEvaluation [seconds [maxSessions [table.md [svgDir]]]]}
 * prints the tables, writes them to table.md and the charts of Figs 5 and 6 to svgDir if given (default 20 simulated
 * seconds a run, 32 sessions per site).
 */
public final class ConveyorBeltEvaluation {
  static final String[] SITES = {"G", "J", "US", "B", "A"};
  /** Table 2's round trips (ms) between G, J, US, B, A. */
  static final double[][] RTT = {
      {0, 253, 92, 193, 314},
      {253, 0, 153, 282, 188},
      {92, 153, 0, 145, 229},
      {193, 282, 145, 0, 322},
      {314, 188, 229, 322, 0}};
  static final double[] LOCAL_RATIOS = {0, 0.1, 0.3, 0.5, 0.7, 0.9};
  static final long WARMUP_MICROS = 2_000_000;
  /** The read-only baseline's operations file: the online store with nothing local (repository root relative). */
  static final String READ_ONLY = "examples/operations/online-store-read-only.yaml";

  private ConveyorBeltEvaluation() {}

  static NetworkModel sites(int n) {
    double[][] m = new double[n][n];
    for (int a = 0; a < n; a++) {
      System.arraycopy(RTT[a], 0, m[a], 0, n);
    }
    return NetworkModel.fromRttMillis(m);
  }

  /** One run's measures: operations per second after the warm-up, mean latency (ms) of local and global ones. */
  record Measure(int sessions, double perSecond, double localMs, double globalMs, double allMs) {}

  static Measure run(int servers, Map<String, String> params, TxnWorkload workload, int keys, int sessions,
      long thinkMicros, long seconds) {
    return run(sites(servers), servers, params, workload, keys, sessions, thinkMicros, seconds);
  }

  static Measure run(NetworkModel network, int servers, Map<String, String> params, TxnWorkload workload, int keys,
      int sessions, long thinkMicros, long seconds) {
    SimSpec s = SimSpec.defaults().withTopology(servers, 1).withNetwork(network).withParams(new Params(params))
        .withDuration(WARMUP_MICROS + seconds * 1_000_000).withSettle(5_000_000).withTrace(false).withFaultKinds(java.util.Set.of())
        .withFinalReads(false);
    s = s.withWorkload(s.workload().withKeys(keys).withSessionsPerDc(sessions).withThinkMicros(thinkMicros)
        .withTxn(Workload.Txns.of(1.0, workload)));
    SimResult r = new Simulation(s, new ConveyorBelt(), 1).run();
    if (r.failed()) {
      throw new IllegalStateException("seed 1 failed: " + r.failures());
    }
    long[] n = new long[3];
    double[] sum = new double[3];
    for (Operation op : r.history().operations()) {
      if (!op.ok() || op.txn() == null || op.completeMicros() < WARMUP_MICROS) {
        continue;
      }
      String p = op.txn().request().procedure();
      int kind = MicroProcedures.LOCAL.equals(p) ? 0 : MicroProcedures.GLOBAL.equals(p) ? 1 : 2;
      double ms = (op.completeMicros() - op.invokeMicros()) / 1000.0;
      n[kind]++;
      sum[kind] += ms;
    }
    long all = n[0] + n[1] + n[2];
    return new Measure(sessions, all / (double) seconds, n[0] == 0 ? Double.NaN : sum[0] / n[0],
        n[1] == 0 ? Double.NaN : sum[1] / n[1], all == 0 ? Double.NaN : (sum[0] + sum[1] + sum[2]) / all);
  }

  /**
   * The online store with the seed's server-specific ids: each session's carts are minted at its site ({@code <d>@...}),
   * so its local operations run at its own server; timed on the session's clock (custom operations are not in the
   * history). Not thread-safe: the simulator runs every session on one thread.
   */
  static final class SiteStore implements Workload.CustomOperations {
    final Map<ConveyorBeltClient, Integer> sessions = new java.util.IdentityHashMap<>();
    long unique;
    long count;
    double sumMs;

    @Override
    public java.util.concurrent.CompletableFuture<?> maybeStart(org.kvlab.api.Client client, java.util.Random random,
        Workload.KeyChooser keys) {
      ConveyorBeltClient c = (ConveyorBeltClient) client;
      int s = sessions.computeIfAbsent(c, x -> sessions.size());
      org.kvlab.api.TxnRequest q = org.kvlab.workload.store.StoreWorkload.next(random, c.site() + "@s" + s + ".", 5,
          unique++);
      long start = c.micros();
      return c.transact(q).whenComplete((r, e) -> {
        if (e == null && start >= WARMUP_MICROS) {
          count++;
          sumMs += (c.micros() - start) / 1000.0;
        }
      });
    }
  }

  static double siteStore(int servers, long seconds) {
    SiteStore w = new SiteStore();
    SimSpec s = SimSpec.defaults().withTopology(servers, 1).withNetwork(sites(servers))
        .withParams(new Params(Map.of("operations", "store"))).withDuration(WARMUP_MICROS + seconds * 1_000_000)
        .withSettle(5_000_000).withTrace(false).withFaultKinds(java.util.Set.of()).withMaxSkewMillis(0)
        .withFinalReads(false);
    s = s.withWorkload(s.workload().withKeys(5).withSessionsPerDc(1).withThinkMicros(50_000).withCustom(w));
    SimResult r = new Simulation(s, new ConveyorBelt(), 1).run();
    if (r.failed()) {
      throw new IllegalStateException("seed 1 failed: " + r.failures());
    }
    return w.count == 0 ? Double.NaN : w.sumMs / w.count;
  }

  /**
   * The centralized baseline: one server in G (a Conveyor Belt of one server executes every operation at once) and
   * one client at each of the {@code clients} first sites, each site in its own run (its round trip to G as the
   * datacenter's latency; G's own client on the LAN); the mean latency of an operation over the sites.
   */
  static double centralized(int clients, Map<String, String> params, TxnWorkload workload, long seconds) {
    double sum = 0;
    for (int site = 0; site < clients; site++) {
      sum += run(NetworkModel.fromRttMillis(new double[][] {{RTT[site][0]}}), 1, params, workload, 5, 1, 50_000,
          seconds).allMs();
    }
    return sum / clients;
  }

  /** The read-only baseline on {@code servers} sites: writes global under the token, reads at the client's server. */
  static double readOnly(int servers, long seconds) {
    return run(servers, Map.of("operations", READ_ONLY), TxnWorkload.of("store"), 5, 1, 50_000, seconds).allMs();
  }

  public static void main(String[] args) throws IOException {
    ProgramArgs a = ProgramArgs.of("conveyorbelt", "ConveyorBeltEvaluation",
        "[seconds [maxSessions [table.md [svgDir]]]]", args, 4);
    if (a == null) {
      return;
    }
    long seconds = a.positive(0, "seconds", 20);
    long maxSessions = a.positive(1, "maxSessions", 32);
    StringBuilder out = new StringBuilder();
    out.append("Figs 5/6: micro-benchmark, 3 servers (G, J, US), 5 ms per operation, ").append(seconds)
        .append(" simulated s after a 2 s warm-up\n\n");
    out.append("| local | saturation ops/s (sessions/site) | light: local ms | light: global ms | light: all ms"
        + " | saturated: local ms | saturated: global ms | saturated: all ms |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<String, String> micro = Map.of("operations", "micro", "serviceMicros", "5000");
    List<Measure[]> points = new java.util.ArrayList<>();
    for (double local : LOCAL_RATIOS) {
      TxnWorkload w = TxnWorkload.of("micro").withReadShare(local);
      Measure light = run(3, micro, w, 20, 1, 0, seconds);
      Measure best = light;
      for (int sessions = 2; sessions <= maxSessions; sessions *= 2) {
        Measure m = run(3, micro, w, 20, sessions, 0, seconds);
        if (m.perSecond() > best.perSecond()) {
          best = m;
        }
      }
      points.add(new Measure[] {light, best});
      out.append(String.format(Locale.ROOT, "| %.0f%% | %.0f (%d) | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |%n",
          100 * local, best.perSecond(), best.sessions(), light.localMs(), light.globalMs(), light.allMs(),
          best.localMs(), best.globalMs(), best.allMs()));
    }
    out.append("\nTable 3: online store at light load (1 session per site, 50 ms think time), mean latency of an"
        + " operation (speed-up over the centralized server)\n\n| sites | Conveyor Belt ms, carts by hash"
        + " | with server-specific ids | read-only baseline ms | centralized ms (simulated, clients at all 5 sites)"
        + " |\n|---|---:|---:|---:|---:|\n");
    Map<String, String> store = Map.of("operations", "store");
    double central = centralized(RTT.length, store, TxnWorkload.of("store"), seconds);
    for (int n : new int[] {2, 3, 5}) {
      Measure m = run(n, store, TxnWorkload.of("store"), 5, 1, 50_000, seconds);
      double site = siteStore(n, seconds);
      double readOnly = readOnly(n, seconds);
      out.append(String.format(Locale.ROOT, "| %s | %.0f (%.1fx) | %.0f (%.1fx) | %.0f (%.1fx) | %.0f |%n",
          String.join(", ", List.of(SITES).subList(0, n)), m.allMs(), central / m.allMs(), site, central / site,
          readOnly, central / readOnly, central));
    }
    if (a.count() > 3) {
      ConveyorBeltCharts.figures(Path.of(a.text(3, "")), LOCAL_RATIOS, points);
    }
    System.out.print(out);
    if (a.count() > 2) {
      Files.writeString(Path.of(a.text(2, "")), out.toString());
    }
  }
}
