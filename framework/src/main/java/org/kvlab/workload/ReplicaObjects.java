package org.kvlab.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * The objects of the consensus workload of seed 001 §10.3 (M²Paxos), shared by the simulator's workload, the open-loop
 * generator and the YCSB binding: each of D replicas (datacenters) has its own {@code perReplica} objects, and a
 * client attached to replica d draws one of d's objects with probability {@code locality}, else one of another
 * replica's (uniform over the others, uniform inside). Object {@code index} is the {@code index % perReplica}-th of
 * replica {@code index / perReplica}; its key is {@code k<index>} (ranges), or with {@code hashed} the
 * {@code index % perReplica}-th of the keys {@code k0, k1, ...} whose {@code Math.floorMod(key.hashCode(), D)} is the
 * replica: the initial owner a protocol that places keys by hash gives them (M²Paxos's {@code initialOwner=hash}), so
 * that locality is ownership from the first command on.
 */
public record ReplicaObjects(int perReplica, double locality, boolean hashed) {
  public ReplicaObjects {
    if (perReplica < 1) {
      throw new IllegalArgumentException("objects per replica must be at least 1, got " + perReplica
          + ". Fix: give a positive count, e.g. 1000");
    }
    if (!(locality >= 0 && locality <= 1)) {
      throw new IllegalArgumentException("locality is a fraction from 0 to 1, got " + locality
          + ". Fix: give a value from 0 to 1");
    }
  }

  /** One object's index for a client attached to {@code home} of {@code replicas}, by the locality rule. */
  public int draw(RandomGenerator random, int home, int replicas) {
    int dc = home;
    if (replicas > 1 && random.nextDouble() >= locality) {
      int other = random.nextInt(replicas - 1);
      dc = other >= home ? other + 1 : other;
    }
    return dc * perReplica + random.nextInt(perReplica);
  }

  /** {@code n} distinct objects' indices for a client attached to {@code home}, each by the locality rule. */
  public List<Integer> drawDistinct(RandomGenerator random, int home, int replicas, int n) {
    List<Integer> out = new ArrayList<>();
    int guard = 0;
    while (out.size() < Math.min(n, perReplica * replicas) && guard++ < 100 * n + 100) {
      int k = draw(random, home, replicas);
      if (!out.contains(k)) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * The objects of a complex command (seed 001 §10.3: a command over several objects that "requires triggering the
   * Acquisition phase", as its objects belong to several nodes): the first by the locality rule, each further one from
   * a replica none of the others came from (uniform over those, uniform inside), so the command spans {@code n}
   * replicas (all of them if {@code n} is more than there are).
   */
  public List<Integer> drawSpread(RandomGenerator random, int home, int replicas, int n) {
    List<Integer> out = new ArrayList<>();
    List<Integer> unused = new ArrayList<>();
    int first = draw(random, home, replicas);
    out.add(first);
    for (int d = 0; d < replicas; d++) {
      if (d != first / perReplica) {
        unused.add(d);
      }
    }
    while (out.size() < n && !unused.isEmpty()) {
      int d = unused.remove(random.nextInt(unused.size()));
      out.add(d * perReplica + random.nextInt(perReplica));
    }
    return out;
  }

  /** The key of object {@code index} among {@code replicas}. */
  public String key(int index, int replicas) {
    if (!hashed) {
      return "k" + index;
    }
    return HASHED.computeIfAbsent(List.of(perReplica, replicas), x -> hashLayout(perReplica, replicas))[index];
  }

  private static final Map<List<Integer>, String[]> HASHED = new ConcurrentHashMap<>();

  private static String[] hashLayout(int perReplica, int replicas) {
    String[] out = new String[perReplica * replicas];
    int[] filled = new int[replicas];
    int done = 0;
    for (int i = 0; done < replicas; i++) {
      String k = "k" + i;
      int dc = Math.floorMod(k.hashCode(), replicas);
      if (filled[dc] < perReplica) {
        out[dc * perReplica + filled[dc]++] = k;
        done += filled[dc] == perReplica ? 1 : 0;
      }
    }
    return out;
  }
}
