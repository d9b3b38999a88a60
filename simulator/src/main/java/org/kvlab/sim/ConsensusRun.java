package org.kvlab.sim;

import java.util.Set;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.history.Operation;

/**
 * One simulated run of the consensus workload of seed 001 §10.3 (M²Paxos), measured as the thesis does: N replicas
 * of everything (N datacenters x 1 partition, a session attached to datacenter d proposes at server (d, 0)),
 * {@link Workload.Objects} with its locality and complex commands, open loop at a rate per replica with an in-flight
 * cap per replica, a LAN between replicas, and a CPU cost per message (every message a server sends or takes in, client
 * requests and replies included: {@link NetworkModel#withMessageMicros}), the one thing that makes a busier server
 * (a Multi-Paxos leader) saturate first. Throughput and latency are of the operations invoked after the warm-up (a
 * fifth of the run) that ended OK, in virtual time: deterministic for a seed.
 *
 * @param nodes replicas (datacenters)
 * @param objectsPerReplica objects in each replica's range
 * @param locality share of a session's commands on its own replica's objects
 * @param complexRatio share of complex (multi-object) commands
 * @param complexObjects objects per complex command
 * @param ratePerReplica offered commands per second at each replica (open loop)
 * @param capPerReplica commands in flight per replica at most (arrivals beyond it are skipped)
 * @param rttMicros round trip between two replicas (one way is half, with 10% jitter)
 * @param messageMicros CPU cost of one message sent or taken in
 * @param durationMicros how long commands are offered (the first fifth is warm-up)
 * @param hashed objects laid out by key hash ({@link Workload.Objects}), to match a protocol's initial owners
 */
public record ConsensusRun(int nodes, int objectsPerReplica, double locality, double complexRatio, int complexObjects,
    double ratePerReplica, int capPerReplica, long rttMicros, long messageMicros, long durationMicros,
    boolean hashed) {

  /**
   * What a run measured.
   *
   * @param throughput commands per second that ended OK (after the warm-up)
   * @param medianMillis median latency of those commands
   * @param ok commands that ended OK (after the warm-up)
   * @param notOk commands that ended INFO or FAIL (after the warm-up)
   * @param skipped arrivals skipped at the in-flight cap (the whole run)
   * @param fast the protocol's {@code consensus.fast} counter (fast path / owner path)
   * @param slow its {@code consensus.slow} counter (slow path / acquisition)
   * @param forwarded its {@code consensus.forwarded} counter
   * @param failures what failed the run (an invariant, a handler that threw), empty if none
   */
  public record Measure(double throughput, double medianMillis, long ok, long notOk, long skipped, long fast,
      long slow, long forwarded, String failures) {}

  /** Quiet time after the load, for the commands in flight to end (a server must answer every request). */
  static final long SETTLE_MICROS = SimSpec.CLIENT_TIMEOUT_MICROS;

  /** N replicas, 1000 objects each at 100% locality, single-object commands, 10 µs a message, 0.5 ms RTT. */
  public static ConsensusRun of(int nodes) {
    return new ConsensusRun(nodes, 1000, 1.0, 0, 2, 1000, 8, 500, 10, 1_000_000, false);
  }

  public ConsensusRun withNodes(int n) {
    return new ConsensusRun(n, objectsPerReplica, locality, complexRatio, complexObjects, ratePerReplica, capPerReplica,
        rttMicros, messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withLocality(double l) {
    return new ConsensusRun(nodes, objectsPerReplica, l, complexRatio, complexObjects, ratePerReplica, capPerReplica,
        rttMicros, messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withComplex(double ratio, int objects) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, ratio, objects, ratePerReplica, capPerReplica,
        rttMicros, messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withObjectsPerReplica(int n) {
    return new ConsensusRun(nodes, n, locality, complexRatio, complexObjects, ratePerReplica, capPerReplica, rttMicros,
        messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withHashed(boolean h) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, complexRatio, complexObjects, ratePerReplica,
        capPerReplica, rttMicros, messageMicros, durationMicros, h);
  }

  /** Offered load: {@code perReplica} commands per second at each replica, at most {@code cap} in flight there. */
  public ConsensusRun withLoad(double perReplica, int cap) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, complexRatio, complexObjects, perReplica, cap,
        rttMicros, messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withMessageMicros(long micros) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, complexRatio, complexObjects, ratePerReplica,
        capPerReplica, rttMicros, micros, durationMicros, hashed);
  }

  public ConsensusRun withRttMicros(long micros) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, complexRatio, complexObjects, ratePerReplica,
        capPerReplica, micros, messageMicros, durationMicros, hashed);
  }

  public ConsensusRun withDuration(long micros) {
    return new ConsensusRun(nodes, objectsPerReplica, locality, complexRatio, complexObjects, ratePerReplica,
        capPerReplica, rttMicros, messageMicros, micros, hashed);
  }

  /** The simulator's spec of this run, with the protocol's parameters. */
  public SimSpec spec(Params params) {
    Workload w = Workload.defaults().withGetRatio(0).withThinkMicros(0).withSessionsPerDc(capPerReplica)
        .withObjects(new Workload.Objects(objectsPerReplica, locality, complexRatio, complexObjects, 16, hashed))
        .withOpenRatePerDc(ratePerReplica);
    return SimSpec.defaults().withTopology(nodes, 1).withNetwork(NetworkModel.uniform(nodes, rttMicros / 1000.0)
        .withMessageMicros(messageMicros)).withParams(params).withWorkload(w).withFaultKinds(Set.of())
        .withFaults(java.util.List.of()).withDuration(durationMicros).withSettle(SETTLE_MICROS).withTrace(false)
        .withFinalReads(false);
  }

  /** Runs {@code protocol} with {@code params} on this setup and measures it. */
  public Measure run(Protocol protocol, Params params, long seed) {
    SimResult r = new Simulation(spec(params), protocol, seed).run();
    long warm = durationMicros / 5;
    long[] latencies = r.history().operations().stream()
        .filter(o -> o.invokeMicros() >= warm && o.outcome() == Operation.Outcome.OK)
        .mapToLong(o -> o.completeMicros() - o.invokeMicros()).sorted().toArray();
    long notOk = r.history().operations().stream()
        .filter(o -> o.invokeMicros() >= warm && o.outcome() != Operation.Outcome.OK).count();
    double seconds = (durationMicros - warm) / 1e6;
    double median = latencies.length == 0 ? Double.NaN : latencies[latencies.length / 2] / 1000.0;
    return new Measure(latencies.length / seconds, median, latencies.length, notOk, r.counter(OpenLoop.SKIPPED),
        r.counter("consensus.fast"), r.counter("consensus.slow"), r.counter("consensus.forwarded"),
        String.join("; ", r.failures()));
  }

  @Override
  public String toString() {
    return nodes + " nodes, " + objectsPerReplica + " objects each, locality " + locality + ", complex "
        + complexRatio + "x" + complexObjects + ", " + ratePerReplica + "/s per replica (cap " + capPerReplica
        + "), RTT " + rttMicros + " µs, " + messageMicros + " µs a message, " + durationMicros / 1000 + " ms";
  }
}
