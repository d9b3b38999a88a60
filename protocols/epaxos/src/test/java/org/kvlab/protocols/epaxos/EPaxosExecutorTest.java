package org.kvlab.protocols.epaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.kvlab.api.Invariants.InvariantViolation;

/**
 * The execution rule alone, on hand-made graphs: components in reverse topological order, inside one by seq then
 * instance; a walk that meets an uncommitted instance waits for it and resumes when it commits; the invariant that
 * refuses to run a command before its dependencies. And the interference table's dependency rule.
 */
class EPaxosExecutorTest {

  /** A replica that holds instances in a map and logs what it executes. */
  static final class Fake implements Executor.Replica {
    final Map<Long, Instance> entries = new HashMap<>();
    final List<String> executed = new ArrayList<>();
    final List<Long> waitedFor = new ArrayList<>();

    void put(long id, int status, long seq, long... deps) {
      Instance.Builder b = Instance.newBuilder().setId(Ids.proto(id)).setStatus(status).setSeq(seq);
      for (long d : deps) {
        b.addDeps(Ids.proto(d));
      }
      entries.put(id, b.build());
    }

    @Override
    public Instance entry(long id) {
      return entries.get(id);
    }

    @Override
    public boolean executed(long id) {
      return entries.containsKey(id) && entries.get(id).getStatus() == EPaxosServer.EXECUTED;
    }

    @Override
    public void execute(Instance e) {
      executed.add(Ids.show(Ids.of(e.getId())));
      entries.put(Ids.of(e.getId()), e.toBuilder().setStatus(EPaxosServer.EXECUTED).build());
    }

    @Override
    public void waitingFor(long id) {
      waitedFor.add(id);
    }
  }

  static final long A = Ids.of(0, 1);
  static final long B = Ids.of(1, 1);
  static final long C = Ids.of(2, 1);
  static final long D = Ids.of(0, 2);

  @Test
  void when_instancesFormACycleAndAChain_then_theChainRunsFirstAndTheCycleBySeqThenInstance() {
    Fake r = new Fake();
    r.put(C, EPaxosServer.COMMITTED, 1);                 // C: no dependency
    r.put(A, EPaxosServer.COMMITTED, 5, B, C);           // A <-> B cycle, both after C
    r.put(B, EPaxosServer.COMMITTED, 3, A);
    r.put(D, EPaxosServer.COMMITTED, 3, A);              // D after the cycle
    Executor x = new Executor(r);
    assertTrue(x.tryExecute(D));
    assertEquals(List.of("2.1", "1.1", "0.1", "0.2"), r.executed); // B (seq 3) before A (seq 5)
  }

  @Test
  void when_aDependencyIsNotCommitted_then_theWalkWaitsAndResumesWhenItCommits() {
    Fake r = new Fake();
    r.put(A, EPaxosServer.COMMITTED, 2, B);
    r.put(B, EPaxosServer.PREACCEPTED, 1);
    Executor x = new Executor(r);
    x.committed(A);
    assertEquals(List.of(), r.executed);
    assertEquals(List.of(B), r.waitedFor);
    assertEquals(1, x.waiting());
    r.put(B, EPaxosServer.COMMITTED, 1);
    x.committed(B);
    assertEquals(List.of("1.1", "0.1"), r.executed);
    assertEquals(0, x.waiting());
  }

  @Test
  void when_aComponentWouldRunBeforeADependencyOutsideIt_then_theInvariantRefuses() {
    Fake r = new Fake();
    r.put(A, EPaxosServer.COMMITTED, 2, B);              // B unknown: not committed
    Executor x = new Executor(new Executor.Replica() {
      private int asked;

      @Override
      public Instance entry(long id) {
        return r.entry(id);
      }

      @Override
      public boolean executed(long id) {
        return id == B && asked++ == 0; // executed when the walk asks, not when the component is checked
      }

      @Override
      public void execute(Instance e) {
        r.execute(e);
      }

      @Override
      public void waitingFor(long id) {}
    });
    assertThrows(InvariantViolation.class, () -> x.tryExecute(A));
    assertFalse(r.executed.contains("0.1"));
  }

  @Test
  void when_anInstanceBecomesANoOp_then_laterCommandsStillDependOnTheInstancesItStoodFor() {
    Conflicts t = new Conflicts();
    Command put = Command.newBuilder().addKeys("k").build();
    t.open(Ids.of(0, 1), put, 1);
    t.open(Ids.of(0, 2), put, 2);                         // both uncommitted
    t.committed(Ids.of(0, 2), put, Command.newBuilder().setNoop(true).build(), 0); // 0.2 becomes a no-op
    TreeSet<Long> deps = new TreeSet<>();
    t.addDeps(put, Ids.of(1, 1), deps);
    assertEquals(new TreeSet<>(List.of(Ids.of(0, 1))), deps); // 0.1 still a dependency, not hidden behind 0.2
    assertEquals(3, t.seqFor(put));
    t.committed(Ids.of(0, 1), put, put, 1);
    t.open(Ids.of(0, 3), put, 4);
    deps.clear();
    t.addDeps(put, Ids.of(1, 1), deps);
    assertEquals(new TreeSet<>(List.of(Ids.of(0, 1), Ids.of(0, 3))), deps); // highest committed + uncommitted above
  }
}
