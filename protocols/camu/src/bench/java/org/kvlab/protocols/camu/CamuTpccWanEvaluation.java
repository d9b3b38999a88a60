package org.kvlab.protocols.camu;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.Workload;

/**
 * The thesis's TPC-C runs (Figs. 5.3/5.4: LAN, 50 partitions with 3 ms rounds and 100 with 5 ms; Fig. 5.8: WAN, 45
 * partitions on 6 sites with 20 ms rounds) and its WAN micro-benchmark (Figs. 5.9/5.10), in simulation, for PB, TOM
 * and CaMu, with uniform or Zipf (s = 2) choice of the remote partition. Same harness as {@link CamuEvaluation}
 * (closed loop, n sessions, think time up to 2 rounds, metric: mean batching-to-execution latency,
 * {@code camu.latencyMicros}); the workload is {@link TpccLike} (or the micro-benchmark for the WAN micro cells).
 *
 * <p>WAN placement: 45 partitions in contiguous blocks on the thesis's 6 sites (Table 5.2: Grenoble, Nancy, Nantes,
 * Rennes, Sophia, Luxembourg, with 8, 8, 5, 8, 8, 8 partitions), so CaMu's PB partners p±1..p±3 are mostly on the
 * partition's own site (the thesis put its PB partners on the same site). The thesis gives only round-trip times from
 * Lille (Table 5.3: 15.5, 9.57, 26.2, 27.5, 19.4, 11.8 ms); between two sites we take the mean of their two RTTs
 * (an assumption), inside a site 0.2 ms one-way. Server-to-server receive cost 50 µs per message, as in the LAN
 * table where the PB/TOM crossover shows.
 *
 * <p>{@code scripts/bench/eval camu CamuTpccWanEvaluation [rounds [table.md [svgDir]]]} (docs/benchmarks/camu.md).
 */
public final class CamuTpccWanEvaluation {
  static final long RECEIVE = 50;
  static final int[] SITE_SIZES = {8, 8, 5, 8, 8, 8};
  static final String[] SITE_NAMES = {"Grenoble", "Nancy", "Nantes", "Rennes", "Sophia", "Luxembourg"};
  static final double[] RTT_FROM_LILLE = {15.5, 9.57, 26.2, 27.5, 19.4, 11.8};

  record Cell(String net, int partitions, String workload, String partner, String mode, double meanMs, double mpoMs,
      long txns, long mpos) {}

  static NetworkModel wan() {
    int n = 0;
    for (int s : SITE_SIZES) {
      n += s;
    }
    int[] siteOf = new int[n];
    int p = 0;
    for (int s = 0; s < SITE_SIZES.length; s++) {
      for (int i = 0; i < SITE_SIZES[s]; i++) {
        siteOf[p++] = s;
      }
    }
    int k = SITE_SIZES.length;
    long[][] base = new long[k][k];
    long[][] jitter = new long[k][k];
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        base[a][b] = a == b ? 200 : Math.round((RTT_FROM_LILLE[a] + RTT_FROM_LILLE[b]) / 2 * 1000 / 2);
        jitter[a][b] = a == b ? 100 : base[a][b] / 10;
      }
    }
    return NetworkModel.uniform(1, 1).withReceiveMicros(RECEIVE).withSites(new NetworkModel.Sites(siteOf, base,
        jitter));
  }

  static SimSpec spec(NetworkModel net, int n, long round, String mode, String partner, String workload,
      long durationMicros) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("mode", mode);
    p.put("round", round + "us");
    p.put("pbPartners", partner.equals("uniform") ? Integer.toString(n) : "3");
    p.put("durableState", "false"); // no crashes here; saving the state costs wall time, no virtual time
    int keys = 40 * n;
    Workload w = Workload.defaults().withKeys(keys).withSessionsPerDc(n).withThinkMicros(2 * round);
    if (workload.equals("tpcc")) {
      w = w.withCustom(new TpccLike(new Topology(1, n), keys, partner));
    } else {
      w = w.withTxn(new Workload.Txns(1.0, Integer.parseInt(workload.substring(5)), partner, 2, 1, 0));
    }
    return SimSpec.defaults().withTopology(1, n).withNetwork(net).withParams(new Params(p)).withWorkload(w)
        .withFaultKinds(Set.of()).withDuration(durationMicros).withSettle(30 * round).withTrace(false)
        .withFinalReads(false);
  }

  static Cell run(String netName, NetworkModel net, int n, long round, String mode, String partner, String workload,
      long rounds) {
    SimResult r = new Simulation(spec(net, n, round, mode, partner, workload, rounds * round), new Camu(), 1).run();
    if (r.failed()) {
      throw new IllegalStateException(mode + " n=" + n + " " + workload + " " + partner + ": " + r.failures());
    }
    long count = r.counter("camu.latencyMicros.count");
    if (count == 0) {
      throw new IllegalStateException(mode + " n=" + n + " " + workload + ": no transaction completed");
    }
    long mpoCount = 0;
    long mpoSum = 0;
    for (String kind : List.of("pb", "tom", "hybrid")) {
      mpoCount += r.counter("camu.latencyMicros." + kind + ".count");
      mpoSum += r.counter("camu.latencyMicros." + kind + ".sum");
    }
    return new Cell(netName, n, workload, partner, mode, r.counter("camu.latencyMicros.sum") / 1000.0 / count,
        mpoCount == 0 ? Double.NaN : mpoSum / 1000.0 / mpoCount, count, mpoCount);
  }

  static List<Cell> grid(long rounds) {
    List<Cell> out = new ArrayList<>();
    NetworkModel lan = NetworkModel.uniform(1, 1).withReceiveMicros(RECEIVE);
    for (int n : new int[] {50, 100}) {
      for (String partner : new String[] {"uniform", "zipf"}) {
        for (String mode : CamuEvaluation.MODES) {
          out.add(run("LAN", lan, n, n == 50 ? 3_000 : 5_000, mode, partner, "tpcc", rounds));
        }
      }
    }
    NetworkModel wan = wan();
    for (String workload : new String[] {"tpcc", "micro2", "micro4"}) {
      for (String partner : new String[] {"uniform", "zipf"}) {
        for (String mode : CamuEvaluation.MODES) {
          out.add(run("WAN", wan, 45, 20_000, mode, partner, workload, rounds));
        }
      }
    }
    return out;
  }

  static Cell find(List<Cell> cells, String net, int n, String workload, String partner, String mode) {
    return cells.stream().filter(c -> c.net().equals(net) && c.partitions() == n && c.workload().equals(workload)
        && c.partner().equals(partner) && c.mode().equals(mode)).findFirst().orElseThrow();
  }

  static String table(List<Cell> cells) {
    StringBuilder out = new StringBuilder();
    out.append("| network | partitions (round) | workload | partners | PB (ms) | TOM (ms) | CaMu (ms) | best |"
        + " MPO only: PB / TOM / CaMu (ms) | MPO share |\n");
    out.append("|---|---|---|---|---|---|---|---|---|---|\n");
    List<Cell> first = cells.stream().filter(c -> c.mode().equals("pb")).toList();
    for (Cell c : first) {
      Cell tom = find(cells, c.net(), c.partitions(), c.workload(), c.partner(), "tom");
      Cell camu = find(cells, c.net(), c.partitions(), c.workload(), c.partner(), "camu");
      String best = c.meanMs() <= tom.meanMs() && c.meanMs() <= camu.meanMs() ? "PB"
          : tom.meanMs() <= camu.meanMs() ? "TOM" : "CaMu";
      long round = c.net().equals("WAN") ? 20 : c.partitions() == 50 ? 3 : 5;
      out.append("| ").append(c.net()).append(" | ").append(c.partitions()).append(" (").append(round)
          .append(" ms) | ").append(c.workload().equals("tpcc") ? "TPC-C-like" : c.workload().replace("micro",
              "micro, ") + " partitions").append(" | ").append(c.partner()).append(" | ")
          .append(CamuEvaluation.f(c.meanMs())).append(" | ").append(CamuEvaluation.f(tom.meanMs())).append(" | ")
          .append(CamuEvaluation.f(camu.meanMs())).append(" | ").append(best).append(" | ")
          .append(CamuEvaluation.f(c.mpoMs())).append(" / ").append(CamuEvaluation.f(tom.mpoMs())).append(" / ")
          .append(CamuEvaluation.f(camu.mpoMs())).append(" | ")
          .append(Math.round(100.0 * camu.mpos() / camu.txns())).append(" % |\n");
    }
    return out.toString();
  }

  static void charts(Path dir, List<Cell> cells) throws Exception {
    String[] names = {"PB", "TOM", "CaMu"};
    List<String> lanXs = List.of("50 uniform", "50 zipf", "100 uniform", "100 zipf");
    Map<String, List<Double>> lan = new LinkedHashMap<>();
    for (int m = 0; m < 3; m++) {
      List<Double> ys = new ArrayList<>();
      for (String x : lanXs) {
        String[] a = x.split(" ");
        ys.add(find(cells, "LAN", Integer.parseInt(a[0]), "tpcc", a[1], CamuEvaluation.MODES[m]).meanMs());
      }
      lan.put(names[m], ys);
    }
    CamuEvaluation.bars(dir, "camu-tpcc-lan.svg", "TPC-C-like, LAN, receive cost 50 µs", "partitions, partner choice",
        lanXs, lan);
    List<String> wanXs = List.of("tpcc uniform", "tpcc zipf", "micro2 uniform", "micro2 zipf", "micro4 uniform",
        "micro4 zipf");
    Map<String, List<Double>> wan = new LinkedHashMap<>();
    for (int m = 0; m < 3; m++) {
      List<Double> ys = new ArrayList<>();
      for (String x : wanXs) {
        String[] a = x.split(" ");
        ys.add(find(cells, "WAN", 45, a[0], a[1], CamuEvaluation.MODES[m]).meanMs());
      }
      wan.put(names[m], ys);
    }
    CamuEvaluation.bars(dir, "camu-wan.svg", "WAN, 45 partitions on 6 sites, 20 ms rounds",
        "workload, partner choice", wanXs.stream().map(x -> x.replace("tpcc", "TPC-C").replace("micro", "micro-"))
            .toList(), wan);
  }

  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("camu", "CamuTpccWanEvaluation", "[rounds [table.md [svgDir]]]", argv, 3);
    if (args == null) {
      return;
    }
    long rounds = args.positive(0, "rounds", 100);
    long start = System.nanoTime();
    List<Cell> cells = grid(rounds);
    String t = table(cells);
    System.out.print(t);
    System.out.println("(" + (System.nanoTime() - start) / 1_000_000_000 + " s wall)");
    cells.forEach(System.out::println);
    if (args.count() > 1) {
      Files.writeString(Path.of(args.text(1, null)), t, StandardCharsets.UTF_8);
    }
    if (args.count() > 2) {
      charts(Path.of(args.text(2, null)), cells);
    }
  }
}
