package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What simulated client sessions do: closed loop, one operation at a time, with think time; or open loop (see
 * {@code openRatePerDc}).
 *
 * @param sessionsPerDc sessions attached to each datacenter
 * @param keys size of the key space ({@code k0 .. k<keys-1>})
 * @param getRatio fraction of plain operations that are gets (the rest are puts)
 * @param rotxRatio fraction of operations that are read-only transactions (if the protocol offers them)
 * @param rotxKeys keys per read-only transaction
 * @param distribution {@code uniform} or {@code zipfian} (constant 0.99, as YCSB)
 * @param thinkMicros maximum think time between two operations of a session (uniform in 0..max)
 * @param custom optional protocol-specific operations (extension point), may be null
 * @param txn multi-key transactions (if the protocol offers them), {@link Txns#NONE} for none
 * @param remoteRatio fraction of operations a session issues at another datacenter (chosen at random) before
 *     returning to its own: sessions that switch datacenters, the case per-key session guarantees exist for
 *     (seed 003 §1.1: NuKV lets clients change datacenter). 0 = sticky sessions.
 * @param objects null, or the consensus workload's objects per replica with their locality and complex commands
 *     ({@link Objects}): it then chooses every operation's keys and values
 * @param openRatePerDc 0 = closed loop; else open loop: each datacenter issues operations at this mean rate per
 *     second of virtual time (Poisson arrivals), each on one of its {@code sessionsPerDc} sessions that is idle; with
 *     every session busy the operation is skipped, so {@code sessionsPerDc} is the cap on operations in flight per
 *     datacenter (seed 001 §10.3: "when it is reached, a node will skip issuing new commands"). Think time is unused.
 */
public record Workload(int sessionsPerDc, int keys, double getRatio, double rotxRatio, int rotxKeys,
    String distribution, long thinkMicros, CustomOperations custom, Txns txn, double remoteRatio, Objects objects,
    double openRatePerDc) {

  /**
   * The consensus workload of seed 001 §10.3 (M²Paxos): each replica (datacenter) has its own range of
   * {@code perReplica} objects, datacenter d's being {@code k(d·perReplica) .. k((d+1)·perReplica − 1)}; a session
   * attached to datacenter d draws an object from d's range with probability {@code locality}, else from the range of
   * another datacenter (uniform over the others, uniform inside the range). A share {@code complexRatio} of the
   * operations are "complex" commands: a multi-key {@link org.kvlab.api.TxnRequest} (through the client's
   * {@link org.kvlab.api.Transactions}) that writes {@code complexObjects} distinct objects, the first drawn by the
   * same rule and each other one from another datacenter's objects, so that the command spans that many datacenters
   * (the thesis's complex commands need M²Paxos's acquisition: their objects belong to several nodes); the rest are single-object gets or puts (the workload's {@code getRatio}). Every value written is
   * {@code payloadBytes} long and unique in the run. With {@code hashed}, datacenter d's objects are instead the first
   * {@code perReplica} keys {@code k0, k1, ...} whose {@code Math.floorMod(key.hashCode(), datacenters)} is d: the
   * initial owner a protocol that places keys by hash gives them (M²Paxos's {@code initialOwner=hash}), so that
   * locality is ownership from the first command on.
   */
  public record Objects(int perReplica, double locality, double complexRatio, int complexObjects, int payloadBytes,
      boolean hashed) {
    public Objects(int perReplica, double locality, double complexRatio, int complexObjects, int payloadBytes) {
      this(perReplica, locality, complexRatio, complexObjects, payloadBytes, false);
    }

    public Objects {
      if (perReplica < 1) {
        throw new IllegalArgumentException("objects per replica must be at least 1, got " + perReplica
            + ". Fix: give a positive count, e.g. 1000");
      }
      if (!(locality >= 0 && locality <= 1) || !(complexRatio >= 0 && complexRatio <= 1)) {
        throw new IllegalArgumentException("locality and the complex-command share are fractions from 0 to 1, got "
            + locality + " and " + complexRatio + ". Fix: give values from 0 to 1");
      }
      if (complexObjects < 2 || complexObjects > perReplica) {
        throw new IllegalArgumentException("a complex command touches from 2 to perReplica (" + perReplica
            + ") objects, got " + complexObjects + ". Fix: give a count in that range, e.g. 2");
      }
      if (payloadBytes < 16) {
        throw new IllegalArgumentException("payloads must be at least 16 bytes (a value's unique tag), got "
            + payloadBytes + ". Fix: give 16 or more");
      }
    }

    /** {@code perReplica} objects per replica at {@code locality}, single-object commands, 16-byte payloads. */
    public static Objects of(int perReplica, double locality) {
      return new Objects(perReplica, locality, 0, 2, 16);
    }

    public Objects withComplex(double ratio, int objects) {
      return new Objects(perReplica, locality, ratio, objects, payloadBytes, hashed);
    }

    /** The same objects laid out by key hash (see {@link Objects}) instead of by ranges of key numbers. */
    public Objects withHashed(boolean h) {
      return new Objects(perReplica, locality, complexRatio, complexObjects, payloadBytes, h);
    }

    /** The objects' layout and the locality rule (shared with the open-loop generator and the YCSB binding). */
    public org.kvlab.workload.ReplicaObjects layout() {
      return new org.kvlab.workload.ReplicaObjects(perReplica, locality, hashed);
    }

    /** One object for a session attached to {@code home} of {@code datacenters}, by the locality rule. */
    public int draw(Random random, int home, int datacenters) {
      return layout().draw(random, home, datacenters);
    }

    /** {@code n} distinct objects for a session attached to {@code home}, each by the locality rule. */
    public List<Integer> drawDistinct(Random random, int home, int datacenters, int n) {
      return layout().drawDistinct(random, home, datacenters, n);
    }

    /** A complex command's objects: the first by the locality rule, the others from other datacenters (spread). */
    public List<Integer> drawSpread(Random random, int home, int datacenters, int n) {
      return layout().drawSpread(random, home, datacenters, n);
    }

    /** The key of object {@code index} (datacenter {@code index / perReplica}) among {@code datacenters}. */
    public String key(int index, int datacenters) {
      return layout().key(index, datacenters);
    }

    /** A value of {@code payloadBytes} bytes: {@code tag} padded with '.', or {@code #counter} if the tag is longer. */
    public String payload(String tag, long counter) {
      String t = tag.length() <= payloadBytes ? tag : "#" + counter;
      return t + ".".repeat(Math.max(0, payloadBytes - t.length()));
    }
  }

  /**
   * Multi-key transactions of the workload: a session picks a home partition uniformly, then {@code partitions - 1}
   * distinct partner partitions, uniformly or by Zipf (rank r of the partners home+1, home+2, ... has weight
   * 1/r^s), then {@code keysPerPartition} keys in each; the transaction reads and writes them (unique values), or
   * with probability {@code procedureRatio} runs the {@code add(1)} procedure over them.
   *
   * @param ratio fraction of operations that are transactions
   * @param partitions partitions per transaction (1 = single-partition transactions)
   * @param partner {@code uniform} or {@code zipf}
   * @param zipfS the Zipf exponent (the CaMu thesis uses 2)
   * @param workload null for the transactions above, else a workload whose histories the black-box checkers judge
   *     ({@link TxnWorkload}: list-append, rw-register, bank), which then chooses keys itself
   */
  public record Txns(double ratio, int partitions, String partner, double zipfS, int keysPerPartition,
      double procedureRatio, TxnWorkload workload) {
    public static final Txns NONE = new Txns(0, 2, "uniform", 2, 1, 0);

    public Txns(double ratio, int partitions, String partner, double zipfS, int keysPerPartition,
        double procedureRatio) {
      this(ratio, partitions, partner, zipfS, keysPerPartition, procedureRatio, null);
    }

    /** A share {@code ratio} of the operations are transactions of {@code workload}. */
    public static Txns of(double ratio, TxnWorkload workload) {
      return new Txns(ratio, 2, "uniform", 2, 1, 0, workload);
    }

    public Txns {
      if (!partner.equals("uniform") && !partner.equals("zipf")) {
        throw new IllegalArgumentException("unknown partner choice '" + partner + "': use uniform or zipf");
      }
      if (partitions < 1 || keysPerPartition < 1) {
        throw new IllegalArgumentException("a transaction touches at least 1 partition and 1 key per partition, got "
            + partitions + " partitions and " + keysPerPartition + " keys per partition");
      }
    }
  }

  public Workload(int sessionsPerDc, int keys, double getRatio, double rotxRatio, int rotxKeys,
      String distribution, long thinkMicros, CustomOperations custom) {
    this(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, Txns.NONE, 0.0, null,
        0);
  }

  /** Sticky sessions (no remote operations), with transactions. */
  public Workload(int sessionsPerDc, int keys, double getRatio, double rotxRatio, int rotxKeys,
      String distribution, long thinkMicros, CustomOperations custom, Txns txn) {
    this(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn, 0.0, null, 0);
  }

  /** Without transactions, sessions that switch datacenters for {@code remoteRatio} of their operations. */
  public Workload(int sessionsPerDc, int keys, double getRatio, double rotxRatio, int rotxKeys,
      String distribution, long thinkMicros, CustomOperations custom, double remoteRatio) {
    this(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, Txns.NONE, remoteRatio,
        null, 0);
  }

  public Workload withTxn(Txns t) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, t, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload {
    if (!distribution.equals("uniform") && !distribution.equals("zipfian")) {
      throw new IllegalArgumentException("unknown key distribution '" + distribution + "'. Fix: " + org.kvlab.config
          .YamlReader.fixWithSuggestion(distribution, List.of("uniform", "zipfian"), "use uniform or zipfian"));
    }
    if (!(remoteRatio >= 0 && remoteRatio <= 1)) {
      throw new IllegalArgumentException("remoteRatio must be from 0 to 1, got " + remoteRatio);
    }
    if (!(openRatePerDc >= 0 && openRatePerDc <= 1e9)) {
      throw new IllegalArgumentException("the open-loop rate must be from 0 (closed loop) to 1e9 operations per second"
          + " per datacenter, got " + openRatePerDc + ". Fix: give a rate in that range");
    }
    if (keys < 1 || sessionsPerDc < 1) {
      throw new IllegalArgumentException("a workload needs at least one key and one session per datacenter");
    }
  }

  public static Workload defaults() {
    return new Workload(2, 20, 0.5, 0.0, 3, "uniform", 2_000, null);
  }

  public Workload withKeys(int keys) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload withSessionsPerDc(int n) {
    return new Workload(n, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload withGetRatio(double r) {
    return new Workload(sessionsPerDc, keys, r, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload withRotx(double ratio, int keysPerTx) {
    return new Workload(sessionsPerDc, keys, getRatio, ratio, keysPerTx, distribution, thinkMicros, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload withDistribution(String d) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, d, thinkMicros, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  public Workload withThinkMicros(long t) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, t, custom, txn, remoteRatio,
        objects, openRatePerDc);
  }

  /** Sessions issue this fraction of their operations at another datacenter (then return home). */
  public Workload withRemoteRatio(double r) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn, r,
        objects, openRatePerDc);
  }

  /** The consensus workload's objects ({@link Objects}); null for the plain key space. */
  public Workload withObjects(Objects o) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn,
        remoteRatio, o, openRatePerDc);
  }

  /** Open loop at {@code perSecond} operations per datacenter, at most {@code sessionsPerDc} in flight; 0 = closed. */
  public Workload withOpenRatePerDc(double perSecond) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, custom, txn,
        remoteRatio, objects, perSecond);
  }

  public Workload withCustom(CustomOperations c) {
    return new Workload(sessionsPerDc, keys, getRatio, rotxRatio, rotxKeys, distribution, thinkMicros, c, txn, remoteRatio,
        objects, openRatePerDc);
  }

  /**
   * Extension point for protocol-specific operations (multi-key transactions, per-operation
   * guarantees): given the session's client and random source, maybe start one operation.
   */
  public interface CustomOperations {
    /** Returns null to fall back to the standard mix, or a description + future of a custom operation. */
    java.util.concurrent.CompletableFuture<?> maybeStart(org.kvlab.api.Client client, Random random, KeyChooser keys);
  }

  /** Draws keys per the workload's distribution. */
  public static final class KeyChooser {
    private final int keys;
    private final double[] cdf;

    KeyChooser(Workload w) {
      this.keys = w.keys();
      cdf = w.distribution().equals("zipfian") ? zipfCdf(keys) : null;
    }

    /** The cumulative distribution of YCSB's Zipf (constant 0.99) over {@code keys} ranks. */
    static double[] zipfCdf(int keys) {
      return org.kvlab.check.txn.TxnGenerator.zipfCdf(keys);
    }

    public String next(Random random) {
      if (cdf == null) {
        return name(random.nextInt(keys));
      }
      double u = random.nextDouble();
      int i = java.util.Arrays.binarySearch(cdf, u);
      return name(Math.min(keys - 1, i >= 0 ? i : -i - 1));
    }

    /**
     * Key {@code i}'s name, {@code "k" + i}, made once per key (filled as keys are drawn): one String per key for the
     * whole run, whose hash is computed once, instead of a new one per operation.
     */
    private String name(int i) {
      if (names == null) {
        names = new String[Math.min(keys, NAMES_KEPT)];
      }
      if (i >= names.length) {
        return "k" + i;
      }
      String n = names[i];
      if (n == null) {
        n = "k" + i;
        names[i] = n;
      }
      return n;
    }

    /** Names kept by {@link #name}: the keys of a large key space beyond it are made per operation. */
    private static final int NAMES_KEPT = 1 << 16;
    private String[] names;

    /** {@code n} distinct keys. */
    public List<String> distinct(Random random, int n) {
      List<String> out = new ArrayList<>();
      int guard = 0;
      while (out.size() < Math.min(n, keys) && guard++ < 10 * n + 100) {
        String k = next(random);
        if (!out.contains(k)) {
          out.add(k);
        }
      }
      return out;
    }
  }
}
