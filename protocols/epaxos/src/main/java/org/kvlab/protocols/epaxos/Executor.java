package org.kvlab.protocols.epaxos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kvlab.api.Invariants;

/**
 * EPaxos execution at one replica: from a committed instance, walk its committed dependencies (Tarjan's strongly
 * connected components, iterative: chains grow long behind a partition), execute each component once all it reaches
 * is committed, in reverse topological order (Tarjan emits sinks first), inside a component by (seq, replica,
 * instance). A walk that meets an instance not committed here stops there and waits: it is retried when that instance
 * commits (components completed before it stay executed).
 */
final class Executor {
  /** What the executor reads and does at its replica. */
  interface Replica {
    /** The instance's state, or null if unknown here. */
    Instance entry(long id);

    /** Executed here (also when executed by every replica and removed). */
    boolean executed(long id);

    /** Applies a committed instance whose dependencies are satisfied. */
    void execute(Instance e);

    /** Execution waits for {@code id}, not committed here: learn it (recovery). */
    void waitingFor(long id);
  }

  private static final Comparator<Instance> ORDER = Comparator.comparingLong(Instance::getSeq)
      .thenComparingLong(e -> Ids.of(e.getId()));
  private final Replica replica;
  private final Map<Long, List<Long>> waiters = new HashMap<>();

  Executor(Replica replica) {
    this.replica = replica;
  }

  /** {@code id} committed here: execute what that allows. */
  void committed(long id) {
    tryExecute(id);
    List<Long> w = waiters.remove(id);
    if (w != null) {
      for (long v : w) {
        tryExecute(v);
      }
    }
  }

  /** How many walks wait for an instance to commit (for tests and status). */
  int waiting() {
    return waiters.size();
  }

  private boolean committed(Instance e) {
    return e != null && e.getStatus() >= EPaxosServer.COMMITTED;
  }

  /** Executes what {@code start} reaches, {@code start} last; false if it waits for an uncommitted instance. */
  boolean tryExecute(long start) {
    if (replica.executed(start)) {
      return true;
    }
    Map<Long, Integer> index = new HashMap<>();
    Map<Long, Integer> low = new HashMap<>();
    Deque<Long> stack = new ArrayDeque<>();
    Set<Long> onStack = new HashSet<>();
    Deque<long[]> frames = new ArrayDeque<>(); // {instance, next dependency}
    index.put(start, 0);
    low.put(start, 0);
    stack.push(start);
    onStack.add(start);
    frames.push(new long[] {start, 0});
    while (!frames.isEmpty()) {
      long[] f = frames.peek();
      long v = f[0];
      Instance e = replica.entry(v);
      if (f[1] < e.getDepsCount()) {
        long w = Ids.of(e.getDeps((int) f[1]++));
        if (replica.executed(w)) {
          continue;
        }
        Instance ew = replica.entry(w);
        if (!committed(ew)) {
          waiters.computeIfAbsent(w, x -> new ArrayList<>()).add(start);
          replica.waitingFor(w);
          return false;
        }
        if (!index.containsKey(w)) {
          index.put(w, index.size());
          low.put(w, index.get(w));
          stack.push(w);
          onStack.add(w);
          frames.push(new long[] {w, 0});
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
        continue;
      }
      frames.pop();
      if (low.get(v).equals(index.get(v))) {
        List<Instance> scc = new ArrayList<>();
        long u;
        do {
          u = stack.pop();
          onStack.remove(u);
          scc.add(replica.entry(u));
        } while (u != v);
        executeComponent(scc);
      }
      if (!frames.isEmpty()) {
        long parent = frames.peek()[0];
        low.put(parent, Math.min(low.get(parent), low.get(v)));
      }
    }
    return true;
  }

  private void executeComponent(List<Instance> scc) {
    Set<Long> members = new HashSet<>();
    scc.forEach(e -> members.add(Ids.of(e.getId())));
    scc.sort(ORDER);
    for (Instance e : scc) {
      for (InstanceId d : e.getDepsList()) {
        long w = Ids.of(d);
        Invariants.check(replica.executed(w) || members.contains(w) && committed(replica.entry(w)),
            "instance %s executes before its dependency %s is committed and (outside its component) executed",
            Ids.show(Ids.of(e.getId())), Ids.show(w));
      }
      replica.execute(e);
    }
  }
}
