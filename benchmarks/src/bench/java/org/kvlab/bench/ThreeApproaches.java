package org.kvlab.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.kvlab.api.Params;
import org.kvlab.api.Protocols;
import org.kvlab.api.TxnRequest;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.history.Operation;
import org.kvlab.sim.NetworkModel;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;
import org.kvlab.sim.TxnWorkload;
import org.kvlab.sim.Workload;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.tpcc.Tpcc;
import org.kvlab.workload.tpcc.TpccProcedures;

/**
 * Three approaches to multi-partition work on one workload, in the simulator (virtual time): CaMu (static data
 * partitioning, transactions ordered by atomic multicast), DynaStar (dynamic data partitioning: a command's variables
 * are lent to one partition, and an oracle moves them to where they are used together) and the Conveyor Belt (static
 * operation partitioning: full copies, local operations at once, global ones under a token).
 *
 * <p>Workload: TPC-C-lite ({@link Tpcc}: 6 warehouses, 10 districts each, 30 customers per district, 15% of payments
 * for another warehouse's customer) <em>without New-Order</em>: Payment 43, Delivery 4, Order-Status 4, Stock-Level 4
 * (New-Order is redrawn), because CaMu runs each partition's share of a transaction alone and refuses a New-Order,
 * whose keys always span partitions under its hash placement ({@code TxnProcedures.splitRefusal}); the other four are
 * key-local, so all three run the same procedures. The Conveyor Belt classifies them with
 * {@code examples/operations/tpcc-lite.yaml} (Alg. 1: Payment global, the other three local, partitioned by warehouse).
 *
 * <p>Same budget: 3 servers that hold data on one LAN (0.4 ms round trip between any two, 10 µs of CPU per message a
 * server sends or takes in): CaMu 1 datacenter x 3 partitions; DynaStar 1 x 4 (3 data partitions and its oracle, a
 * fourth server that holds no data); the Conveyor Belt 3 datacenters x 1. Closed loop without think time, 1 to 64
 * sessions per data server (sessions work for their home warehouse, TPC-C's terminals).
 *
 * <p>{@code scripts/bench/eval benchmarks ThreeApproaches [seconds [table.md [svgDir]]]} (default 10 simulated seconds
 * a run after a 5 s warm-up).
 */
public final class ThreeApproaches {
  /** An approach: the plug-in, its topology and its parameters. */
  record Approach(String label, String protocol, int datacenters, int partitions, Map<String, String> params) {}

  static final int DATA_SERVERS = 3;
  static final int WAREHOUSES = 6;
  static final long WARMUP_MICROS = 5_000_000;
  static final long MESSAGE_MICROS = 10;
  static final int[] LOADS = {1, 4, 16, 64};

  private ThreeApproaches() {}

  /** The Conveyor Belt's operations file, from the repository's root or from a module folder (tests). */
  static String tpccOperations() {
    Path p = Path.of("examples/operations/tpcc-lite.yaml");
    return (Files.exists(p) ? p : Path.of("..").resolve(p)).toString();
  }

  static List<Approach> approaches() {
    return List.of(
        new Approach("CaMu", "camu", 1, DATA_SERVERS, Map.of()),
        new Approach("DynaStar", "dynastar", 1, DATA_SERVERS + 1, Map.of("repartitionEvery", "2s")),
        new Approach("Conveyor Belt", "conveyorbelt", DATA_SERVERS, 1, Map.of("operations", tpccOperations())));
  }

  /** TPC-C-lite with every New-Order redrawn: the key-local four, in TPC-C's proportions among themselves. */
  record WithoutNewOrder(Tpcc tpcc) implements TxnFamily {
    @Override
    public String name() {
      return "tpcc-without-new-order";
    }

    @Override
    public TxnFamily.Generator generator() {
      TxnFamily.Generator g = tpcc.generator();
      return (r, session, now, unique) -> {
        TxnRequest q = g.next(r, session, now, unique);
        while (q.procedure().equals(TpccProcedures.NEW_ORDER)) {
          q = g.next(r, session, now, unique);
        }
        return q;
      };
    }

    @Override
    public String group(String key) {
      return tpcc.group(key);
    }
  }

  static TxnFamily workload() {
    return new WithoutNewOrder(new Tpcc(WAREHOUSES, 10, 30, 1000, 0.01, 0.15));
  }

  /** One run's measures: OK transactions per second after the warm-up, their latency percentiles (ms), failures. */
  record Measure(String label, int sessionsPerServer, double perSecond, double p50, double p99, long notOk) {}

  static Measure run(Approach a, int sessionsPerServer, long seconds) {
    SimSpec s = SimSpec.defaults().withTopology(a.datacenters(), a.partitions())
        .withNetwork(NetworkModel.uniform(a.datacenters(), 0.4).withMessageMicros(MESSAGE_MICROS))
        .withParams(new Params(a.params())).withDuration(WARMUP_MICROS + seconds * 1_000_000).withSettle(5_000_000)
        .withTrace(false).withFaultKinds(Set.of()).withFinalReads(false);
    int perDc = DATA_SERVERS * sessionsPerServer / a.datacenters();
    s = s.withWorkload(s.workload().withSessionsPerDc(perDc).withThinkMicros(0)
        .withTxn(Workload.Txns.of(1.0, TxnWorkload.of(workload()))));
    SimResult r = new Simulation(s, Protocols.byName(a.protocol()), 1).run();
    if (r.failed()) {
      throw new IllegalStateException(a.label() + " failed: " + r.failures());
    }
    List<Double> ms = new ArrayList<>();
    long notOk = 0;
    for (Operation op : r.history().operations()) {
      if (op.txn() == null || op.invokeMicros() < WARMUP_MICROS) {
        continue;
      }
      if (!op.ok()) {
        notOk++;
      } else if (op.completeMicros() <= WARMUP_MICROS + seconds * 1_000_000) {
        ms.add((op.completeMicros() - op.invokeMicros()) / 1000.0);
      }
    }
    double[] sorted = ms.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    return new Measure(a.label(), sessionsPerServer, sorted.length / (double) seconds, percentile(sorted, 0.50),
        percentile(sorted, 0.99), notOk);
  }

  static double percentile(double[] sorted, double q) {
    return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  public static void main(String[] argv) throws Exception {
    ProgramArgs args = ProgramArgs.of("benchmarks", "ThreeApproaches", "[seconds [table.md [svgDir]]]", argv, 3);
    if (args == null) {
      return;
    }
    long seconds = args.positive(0, "seconds", 10);
    StringBuilder t = new StringBuilder("TPC-C-lite without New-Order (Payment 43 / Delivery 4 / Order-Status 4 /"
        + " Stock-Level 4), 6 warehouses, 3 data servers on one LAN (0.4 ms RTT, 10 µs per message), closed loop, "
        + seconds + " simulated s after a 5 s warm-up\n\n| approach | sessions per server | transactions/s | p50 ms"
        + " | p99 ms | not OK |\n|---|---:|---:|---:|---:|---:|\n");
    Map<String, List<double[]>> curves = new LinkedHashMap<>();
    for (Approach a : approaches()) {
      List<double[]> p50 = new ArrayList<>();
      List<double[]> p99 = new ArrayList<>();
      for (int load : LOADS) {
        Measure m = run(a, load, seconds);
        System.err.println(m);
        t.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.2f | %.2f | %d |%n", a.label(), load,
            m.perSecond(), m.p50(), m.p99(), m.notOk()));
        p50.add(new double[] {m.perSecond(), m.p50()});
        p99.add(new double[] {m.perSecond(), m.p99()});
      }
      curves.put(a.label() + " p50", p50);
      curves.put(a.label() + " p99", p99);
    }
    System.out.print(t);
    if (args.count() > 1) {
      Files.writeString(Path.of(args.text(1, null)), t.toString(), StandardCharsets.UTF_8);
    }
    if (args.count() > 2) {
      ConsensusEvaluation.lines(Path.of(args.text(2, null)), "three-approaches-tpcc.svg",
          "TPC-C-lite without New-Order, 3 data servers, LAN", "transactions/s", "latency (ms)", curves);
    }
  }
}
