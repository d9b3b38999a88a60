package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.api.Topology;
import org.kvlab.history.Operation;

/** Scenario building blocks every protocol's tests share (seed 003 §2.3, §9). */
public final class Scenarios {
  private Scenarios() {}

  /** The first key named {@code prefix + i} that lives on partition {@code partition} of {@code topology}. */
  /**
   * Photo/album as two scripted sessions without waits, for {@code kvlab explore}: Alice (dc0) puts the photo (a key
   * on partition 0), then adds it to her album (a key on partition 1); Bob (dc1) reads the album, then the photo. A
   * causal protocol never lets Bob see the album entry without the photo.
   */
  public static List<Script> photoAlbumSessions(Topology topology) {
    String photo = keyOn(topology, "photo", 0);
    String album = keyOn(topology, "album", 1 % topology.partitions());
    return List.of(Script.at(0).put(photo, "beach.jpg").put(album, "has beach.jpg"),
        Script.at(1 % topology.datacenters()).get(album).get(photo));
  }

  public static String keyOn(Topology topology, String prefix, int partition) {
    for (int i = 0; ; i++) {
      if (topology.partitionOf(prefix + i) == partition) {
        return prefix + i;
      }
    }
  }

  /**
   * The outcome of {@link #photoAlbum}.
   *
   * @param bobReadsPhoto Bob's read of the photo after he saw the album entry
   */
  public record PhotoAlbum(SimResult run, String photo, String album, Operation bobReadsPhoto) {}

  /**
   * Photo/album (seed 003 §2.3): in datacenter 0 Alice uploads a photo, then adds it to her album; in
   * datacenter 1 Bob polls the album until the entry appears, then reads the photo. The photo's partition
   * in datacenter 0 is slow (every message it sends is 200 ms late), so its replication arrives after the
   * album's. A causally consistent protocol must show Bob the photo; Eventual shows him nothing.
   */
  public static PhotoAlbum photoAlbum(Protocol protocol, long seed) {
    SimSpec defaults = SimSpec.defaults();
    Topology t = defaults.topology();
    String photo = keyOn(t, "photo", 0);
    String album = keyOn(t, "album", 1);
    SimSpec spec = defaults.withDuration(1_000_000)
        .withFaults(List.of(new Fault.Slow(t.serverFor(photo, 0), 200_000, 0, 1_000_000)));
    Script alice = Script.at(0).startingAt(10_000).put(photo, "beach.jpg").put(album, "album: beach.jpg");
    Script bob = Script.at(1).startingAt(10_000).awaitValue(album, "album: beach.jpg").get(photo);
    SimResult run = new Simulation(spec, protocol, seed, List.of(alice, bob)).run();
    Operation bobReadsPhoto = run.history().operations().stream()
        .filter(op -> op.dc() == 1 && op.type() == Operation.Type.GET && op.key().equals(photo)
            && op.invokeMicros() < spec.durationMicros())
        .findFirst().orElseThrow(() -> new AssertionError("Bob never read the photo: " + run.failures()));
    return new PhotoAlbum(run, photo, album, bobReadsPhoto);
  }

  /** Table 5.1 of seed 003: where datacenter C is moved to, and its RTT (ms) to A and to B. */
  public static final List<String> C_LOCATIONS =
      List.of("California", "Oregon", "Virginia", "Ireland", "Sydney", "Singapore");
  public static final List<double[]> C_RTTS = List.of(new double[] {1.17, 0.32}, new double[] {21.87, 20.61},
      new double[] {67.05, 61.23}, new double[] {138.28, 139.32}, new double[] {159.09, 158.40},
      new double[] {175.64, 175.60});
  /** The RTT between A and B, both in California; not given by the seed: 1 ms assumed. */
  public static final double AB_RTT_MILLIS = 1.0;

  /** Datacenters A (dc0) and B (dc1) {@link #AB_RTT_MILLIS} apart, C (dc2) at {@code cRttMillis} = {to A, to B}. */
  public static NetworkModel threeDcs(double[] cRttMillis) {
    return NetworkModel.fromRttMillis(new double[][] {
        {0, AB_RTT_MILLIS, cRttMillis[0]},
        {AB_RTT_MILLIS, 0, cRttMillis[1]},
        {cRttMillis[0], cRttMillis[1], 0}});
  }

  /**
   * The outcome of {@link #oddEven}.
   *
   * @param spec the simulated setup
   * @param key the counter's key
   * @param increments the increments the clients were to make (the counter should end at this value)
   * @param stalls increments written after the client gave up waiting for the previous count (0 when the clients
   *     always saw each other's increments)
   * @param meanIncrementMillis mean time from one increment's PUT completing to the next one completing; each
   *     includes one update visibility latency (A to B or B to A) and up to 1 ms of polling
   */
  public record OddEven(SimSpec spec, SimResult run, String key, int increments, int stalls,
      double meanIncrementMillis) {
    public boolean completed() {
      return stalls == 0 && run.failures().isEmpty();
    }

    /**
     * What went wrong, empty if nothing: simulator failures, stalls, and the violations of the causal and session
     * checkers.
     */
    public List<String> problems() {
      List<String> out = new ArrayList<>(run.failures());
      if (stalls > 0) {
        out.add(stalls + " increments written without reading the previous count");
      }
      for (org.kvlab.check.Result r : checks("causal", "session")) {
        r.violations().forEach(v -> out.add(r.checker() + ": " + v.explanation()));
      }
      return out;
    }

    /** The verdicts of the checkers named (see {@link org.kvlab.check.Checkers#names()}) on the run's history. */
    public List<org.kvlab.check.Result> checks(String... names) {
      return SimRunner.checkers(spec, List.of(names)).stream().map(c -> c.check(run.history())).toList();
    }
  }

  /**
   * Odd/even increments (seed 003 §5.5.3, the experiment of Fig 5.4; §9 item 3): datacenters A (dc0) and B (dc1)
   * close together, C (dc2) at {@code cRttMillis}. Client c2 in B reads the counter {@code key} and increments it
   * whenever it finds it even (the absent counter is 0); client c1 in A increments it whenever it finds it odd. Every
   * count is written once, so the values are unique. B's servers run {@code bBehindMicros} behind A's: a protocol that
   * orders versions by physical time alone stamps c2's increment lower than the count c2 just read, and the counter
   * goes back. A causally consistent protocol ends at {@code increments} without stalls. A client that waits more
   * than 1 s for the next count gives up and writes its next count anyway (a stall).
   */
  public static OddEven oddEven(Protocol protocol, long seed, int increments, double[] cRttMillis, long bBehindMicros) {
    SimSpec spec = SimSpec.defaults().withTopology(3, 2).withNetwork(threeDcs(cRttMillis)).withDuration(500_000)
        .withSettle(500_000); // the final reads wait for the scripts anyway
    Topology t = spec.topology();
    List<Fault> faults = new ArrayList<>();
    for (int p = 0; p < t.partitions(); p++) {
      faults.add(new Fault.Skew(t.node(1, p), -bBehindMicros, 0));
    }
    String key = keyOn(t, "counter", 0);
    long start = 300_000; // heartbeats and stable times warmed up
    Script a = Script.at(0).startingAt(start);
    Script b = Script.at(1).startingAt(start).put(key, "1");
    for (int n = 2; n <= increments; n++) {
      if (n % 2 == 0) {
        a = a.awaitValue(key, String.valueOf(n - 1), 1_000_000).put(key, String.valueOf(n));
      } else {
        b = b.awaitValue(key, String.valueOf(n - 1), 1_000_000).put(key, String.valueOf(n));
      }
    }
    spec = spec.withFaults(faults);
    SimResult run = new Simulation(spec, protocol, seed, List.of(a, b)).run();
    int stalls = 0;
    long firstPut = -1;
    long lastPut = -1;
    java.util.Map<Integer, String> lastRead = new java.util.HashMap<>(); // per session
    for (Operation op : run.history().operations()) {
      if (!op.ok() || !key.equals(op.key()) || op.session() > 1) {
        continue; // sessions 0 and 1 run the scripts; the simulator's final readers come after
      }
      if (op.type() == Operation.Type.GET) {
        lastRead.put(op.session(), op.readValue().map(v -> v.toStringUtf8()).orElse("0"));
      } else if (op.type() == Operation.Type.PUT) {
        int n = Integer.parseInt(op.value().toStringUtf8());
        if (n > 1 && !String.valueOf(n - 1).equals(lastRead.get(op.session()))) {
          stalls++;
        }
        firstPut = n == 1 ? op.completeMicros() : firstPut;
        lastPut = n == increments ? op.completeMicros() : lastPut;
      }
    }
    double mean = increments > 1 && firstPut >= 0 && lastPut >= 0
        ? (lastPut - firstPut) / 1000.0 / (increments - 1) : Double.NaN;
    return new OddEven(spec, run, key, increments, stalls, mean);
  }
}
