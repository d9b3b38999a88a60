package org.kvlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.kvlab.api.OperationException;
import org.kvlab.api.Protocol;
import org.kvlab.api.Session;
import org.kvlab.check.CausalChecker;
import org.kvlab.check.ConvergenceChecker;
import org.kvlab.check.Result;
import org.kvlab.check.RotxChecker;
import org.kvlab.check.SessionChecker;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.EmulationSpec;
import org.kvlab.config.ClusterConfig.StorageSpec;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;

/**
 * A checked run of a protocol on a real loopback cluster (seed 003 §9 on the real runtime, issue 4 item 6): concurrent
 * sessions in every datacenter do a mix of GET, PUT and read-only transactions on a small key space with unique
 * values, recorded with {@link ClientRuntime#recordHistory}; then the cluster quiesces, one reader per datacenter reads
 * every written key by GET and by ROTX, and the history goes to the causal, session, convergence and rotx checkers.
 *
 * <pre>{@code
 * CheckedClusterRun.Outcome run = CheckedClusterRun.run(new GentleRain(), storage, CheckedClusterRun.Spec.wan2x3());
 * run.assertNoViolations();
 * }</pre>
 *
 * Bounded in time: the workload runs for {@code workload}, and on a slow (loaded) machine each session goes on until
 * it has done {@link #MIN_OPS_PER_SESSION} operations, for at most {@link #MAX_EXTRA} more, so the history is not
 * trivial because the machine was busy; quiescence waits at most {@code quiesceTimeout}, every operation times out
 * after 10 s, and everything started here is closed before it returns.
 */
public final class CheckedClusterRun {
  /** Operations each session does at least (past the workload's duration if the machine is slow). */
  public static final int MIN_OPS_PER_SESSION = 200;
  /** How much longer than the workload's duration a session may run to reach {@link #MIN_OPS_PER_SESSION}. */
  public static final Duration MAX_EXTRA = Duration.ofSeconds(40);

  private CheckedClusterRun() {}

  /**
   * What to run.
   *
   * @param datacenters datacenters of the loopback cluster
   * @param partitions partitions per datacenter
   * @param emulation emulated WAN delay and clock skew
   * @param sessionsPerDc concurrent client sessions attached to each datacenter
   * @param keys the key space {@code k0 .. k(keys-1)}
   * @param getRatio share of GETs; {@code rotxRatio} of read-only transactions; the rest are PUTs
   * @param rotxKeys keys per read-only transaction
   * @param thinkMillis each session pauses 0..thinkMillis between operations
   * @param workload how long the sessions run
   * @param quiesceTimeout the longest wait for both datacenters to agree on every key after the workload
   */
  public record Spec(int datacenters, int partitions, EmulationSpec emulation, int sessionsPerDc, int keys,
      double getRatio, double rotxRatio, int rotxKeys, int thinkMillis, Duration workload, Duration quiesceTimeout) {

    /**
     * 2 datacenters x 3 partitions, 30 ms emulated RTT between them, server 0_1 8 ms ahead and 1_2 6 ms behind;
     * 3 sessions per datacenter on 12 keys, 40% GET, 30% ROTX of 3 keys, 30% PUT, for 4 s.
     */
    public static Spec wan2x3() {
      return new Spec(2, 3, new EmulationSpec(new long[][] {{0, 30}, {30, 0}},
          Map.of(org.kvlab.api.NodeId.of(0, 1), 8L, org.kvlab.api.NodeId.of(1, 2), -6L)),
          3, 12, 0.4, 0.3, 3, 2, Duration.ofSeconds(4), Duration.ofSeconds(20));
    }

    public Spec withEmulation(EmulationSpec emulation) {
      return new Spec(datacenters, partitions, emulation, sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys,
          thinkMillis, workload, quiesceTimeout);
    }
  }

  /**
   * A recorded run.
   *
   * @param history every operation, workload and final reads
   * @param finalReadsFromMicros when the final reads started (the convergence checker's quiescence time)
   * @param workloadErrors operations of the workload that threw (timeouts, failures)
   */
  public record Outcome(History history, long finalReadsFromMicros, List<String> workloadErrors) {

    /** The causal, session, convergence (on the final reads) and rotx verdicts. */
    public List<Result> checks() {
      return List.of(new CausalChecker().check(history), new SessionChecker().check(history),
          new ConvergenceChecker(finalReadsFromMicros).check(history), new RotxChecker().check(history));
    }

    /** Completed (OK) operations of {@code type} invoked before the final reads. */
    public long workloadOps(Operation.Type type) {
      return history.operations().stream()
          .filter(op -> op.ok() && op.type() == type && op.invokeMicros() < finalReadsFromMicros).count();
    }

    /**
     * Reads (a GET, or one key of a ROTX) in datacenter {@code dc} during the workload that returned a value written
     * in another datacenter.
     */
    public long remoteReadsIn(int dc) {
      Map<ByteString, Integer> writerDc = new HashMap<>();
      for (Operation op : history.operations()) {
        if (op.type() == Operation.Type.PUT) {
          writerDc.put(op.value(), op.dc());
        }
      }
      long n = 0;
      for (Operation op : history.operations()) {
        if (op.ok() && op.dc() == dc && op.type() != Operation.Type.PUT && op.invokeMicros() < finalReadsFromMicros) {
          for (Optional<ByteString> v : op.reads().values()) {
            if (v.isPresent() && writerDc.getOrDefault(v.get(), dc) != dc) {
              n++;
            }
          }
        }
      }
      return n;
    }

    /** Every checker passes and every workload operation completed. */
    public void assertNoViolations() {
      assertEquals(List.of(), workloadErrors, "workload operations that failed");
      for (Result r : checks()) {
        assertTrue(r.valid(), () -> r.checker() + ": " + r.violations().size() + " violations, first: "
            + r.violations().subList(0, Math.min(3, r.violations().size())));
      }
    }

    /**
     * The workload did at least this many GETs, PUTs and ROTXs, and in every datacenter at least
     * {@code minRemoteReads} reads returned a value written in another datacenter.
     */
    public void assertNonTrivial(long minGets, long minPuts, long minRotx, long minRemoteReads) {
      assertTrue(workloadOps(Operation.Type.GET) >= minGets, summary());
      assertTrue(workloadOps(Operation.Type.PUT) >= minPuts, summary());
      assertTrue(workloadOps(Operation.Type.ROTX) >= minRotx, summary());
      for (int dc = 0; dc < history.operations().stream().mapToInt(Operation::dc).max().orElse(0) + 1; dc++) {
        assertTrue(remoteReadsIn(dc) >= minRemoteReads, "reads of other datacenters' writes in dc" + dc + ": "
            + summary());
      }
    }

    /** One line per figure, for test output and docs. */
    public String summary() {
      return String.format("%d operations: %d GET, %d PUT, %d ROTX in the workload; remote reads dc0 %d, dc1 %d",
          history.size(), workloadOps(Operation.Type.GET), workloadOps(Operation.Type.PUT),
          workloadOps(Operation.Type.ROTX), remoteReadsIn(0), remoteReadsIn(1));
    }
  }

  /** Starts a loopback cluster of {@code protocol} as {@code spec} says, runs the workload on it, and stops it. */
  public static Outcome run(Protocol protocol, StorageSpec storage, Spec spec) throws Exception {
    ClusterConfig config = TestClusters.loopback(protocol.name(), spec.datacenters(), spec.partitions(), storage)
        .withEmulation(spec.emulation());
    try (LocalCluster cluster = LocalCluster.start(config, protocol);
         ClientRuntime clients = new ClientRuntime(config, protocol, 2)) {
      if (!cluster.awaitConnected(Duration.ofSeconds(30))) {
        throw new AssertionError("the servers of " + config.name() + " did not connect within 30 s");
      }
      return run(clients, spec);
    }
  }

  /** Runs the workload, quiescence and final reads against a running cluster. */
  public static Outcome run(ClientRuntime clients, Spec spec) throws Exception {
    History.Recorder recorder = new History.Recorder();
    clients.recordHistory(recorder);
    Set<String> written = ConcurrentHashMap.newKeySet();
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    long deadline = System.nanoTime() + spec.workload().toNanos();
    List<Thread> threads = new ArrayList<>();
    int index = 0;
    for (int dc = 0; dc < spec.datacenters(); dc++) {
      for (int s = 0; s < spec.sessionsPerDc(); s++) {
        Session session = clients.openSession(dc);
        String name = "s" + index + "@dc" + dc;
        Random random = new Random(index++);
        Thread t = new Thread(() -> sessionLoop(session, name, random, spec, deadline, written, errors),
            "checked-" + name);
        t.start();
        threads.add(t);
      }
    }
    for (Thread t : threads) {
      t.join(spec.workload().toMillis() + MAX_EXTRA.toMillis() + 30_000);
      if (t.isAlive()) {
        t.interrupt();
        errors.add(t.getName() + " still running 30 s after the workload ended");
      }
    }
    clients.recordHistory(null); // polling for quiescence is not part of the history
    awaitAgreement(clients, spec, new TreeSet<>(written));
    clients.recordHistory(recorder);
    long finalReadsFrom = TimeUnit.NANOSECONDS.toMicros(System.nanoTime());
    List<String> keys = new ArrayList<>(new TreeSet<>(written));
    for (int dc = 0; dc < spec.datacenters(); dc++) {
      try (Session reader = clients.openSession(dc)) {
        for (String key : keys) {
          reader.get(key);
        }
        if (reader.supportsReadOnlyTx()) {
          for (int i = 0; i < keys.size(); i += spec.rotxKeys()) {
            reader.readOnlyTx(keys.subList(i, Math.min(keys.size(), i + spec.rotxKeys())));
          }
        }
      }
    }
    clients.recordHistory(null);
    return new Outcome(recorder.build(), finalReadsFrom, List.copyOf(errors));
  }

  private static void sessionLoop(Session session, String name, Random random, Spec spec, long deadline,
      Set<String> written, List<String> errors) {
    boolean rotx = session.supportsReadOnlyTx();
    long hardDeadline = deadline + MAX_EXTRA.toNanos();
    for (int i = 0; System.nanoTime() < deadline || (i < MIN_OPS_PER_SESSION && System.nanoTime() < hardDeadline); i++) {
      double dice = random.nextDouble();
      String key = "k" + random.nextInt(spec.keys());
      try {
        if (dice < spec.getRatio()) {
          session.get(key);
        } else if (rotx && dice < spec.getRatio() + spec.rotxRatio()) {
          List<String> all = new ArrayList<>();
          for (int k = 0; k < spec.keys(); k++) {
            all.add("k" + k);
          }
          java.util.Collections.shuffle(all, random);
          session.readOnlyTx(all.subList(0, Math.min(spec.rotxKeys(), all.size())));
        } else {
          written.add(key); // before the PUT: one that times out may still take effect
          session.put(key, ByteString.copyFromUtf8(name + "." + i)); // unique in the history
        }
        if (spec.thinkMillis() > 0) {
          Thread.sleep(random.nextInt(spec.thinkMillis() + 1));
        }
      } catch (OperationException e) {
        errors.add(name + " op " + i + ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Polls every written key in every datacenter (unrecorded sessions) until all agree, within the timeout. */
  private static void awaitAgreement(ClientRuntime clients, Spec spec, Set<String> keys) throws InterruptedException {
    List<Session> probes = new ArrayList<>();
    for (int dc = 0; dc < spec.datacenters(); dc++) {
      probes.add(clients.openSession(dc));
    }
    long deadline = System.nanoTime() + spec.quiesceTimeout().toNanos();
    List<String> disagree = new ArrayList<>(keys);
    while (!disagree.isEmpty() && System.nanoTime() < deadline) {
      List<String> still = new ArrayList<>();
      for (String key : disagree) {
        Optional<ByteString> first = probes.get(0).get(key);
        for (Session p : probes.subList(1, probes.size())) {
          if (!p.get(key).equals(first)) {
            still.add(key);
            break;
          }
        }
      }
      disagree = still;
      if (!disagree.isEmpty()) {
        Thread.sleep(50);
      }
    }
    probes.forEach(Session::close);
    if (!disagree.isEmpty()) {
      throw new AssertionError("datacenters still disagree on " + disagree + " " + spec.quiesceTimeout().toSeconds()
          + " s after the workload stopped");
    }
  }
}
