package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.message.RaftMessage;
import io.microraft.persistence.RestoredRaftState;
import io.microraft.statemachine.StateMachine;
import io.microraft.transport.Transport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.kvlab.api.NodeId;
import org.kvlab.consensus.raft.RaftCodec;
import org.kvlab.consensus.raft.RaftJournal;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.JeStore;
import org.kvlab.store.VersionedStore;

/**
 * How long the stall watchdog's rebuild of a RaftNode ({@code RaftWatchdog.check}) holds a NuKV replica's event
 * loop, as the journal grows (issue 15).
 *
 * <p>The rebuild runs on the replica's event loop in three turns, each timed here with the wall clock (GC during it
 * included, and shown apart): (1) the watchdog's timer task: {@code RaftJournal.restored} (the journal's
 * in-memory mirror turned into MicroRaft's restored state: one {@code LogEntry} per log entry after the snapshot,
 * one {@code SnapshotChunk} per snapshot chunk; the store is not read) and {@code RaftNode.build()} (MicroRaft's
 * {@code RaftState.restore}, which puts every entry into its log); (2) the new node's start task (MicroRaft's
 * {@code initRestoredState}: the restored snapshot is handed to the state machine, which skips it; the endpoint and
 * members are persisted again, two journal records; a pre-vote starts); (3) the first AppendEntries of a leader
 * naming the commit index, on which the node applies its whole log again from its snapshot (each entry skipped by the
 * replica: it applied them already). This program does that same sequence on one replica's journal: the endpoint,
 * members and term, a snapshot of K keys (1,000 a chunk) and N log entries after it (PUTs with 64-byte values), with
 * MicroRaft's executor running the tasks right away (its timers are dropped: none is due within the measured turns),
 * a transport that drops what it is given, and a state machine that skips what it is given again, as
 * {@code NuKVServer}'s does. For comparison it also times what a restart of the replica replays before its RaftNode
 * exists: {@code new RaftJournal(store, ...)} (every journal record read from the store, and parsed from JE).
 *
 * <p>{@code snapshotEvery} is N + 1 in each row, so the N entries fit in MicroRaft's log and re-applying them crosses
 * no snapshot point; in a running group the log after the snapshot holds at most {@code snapshotEvery} - 1 committed
 * entries plus MicroRaft's 5,000 pending ones (its default {@code maxPendingLogEntryCount}).
 *
 * <p>Usage: {@code scripts/bench/nukv-rebuild-bench} (or {@code scripts/bench/eval nukv NuKVRebuildBench})
 * {@code [--stores memory,je] [--entries 10000,100000,1000000] [--keys 0,1000000] [--rounds 3] [--value 64]
 * [--dir DIR]}.
 */
public final class NuKVRebuildBench {
  private static final RaftModelFactory MODELS = new DefaultRaftModelFactory();
  private static final String GROUP = "0_0";

  private NuKVRebuildBench() {}

  public static void main(String[] args) throws IOException {
    ProgramArgs a = ProgramArgs.of("nukv", "NuKVRebuildBench", "[--stores memory,je] [--entries 10000,100000,1000000]"
        + " [--keys 0,1000000] [--rounds 3] [--value 64] [--dir DIR]", args, Integer.MAX_VALUE);
    if (a == null) {
      return;
    }
    List<String> stores = List.of("memory");
    List<Integer> entries = List.of(10_000, 100_000, 1_000_000);
    List<Integer> keys = List.of(0, 1_000_000);
    int rounds = 3;
    int valueBytes = 64;
    Path dir = null;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw a.fail("option " + args[i] + " needs a value");
      }
      String v = args[i + 1];
      switch (args[i]) {
        case "--stores" -> stores = a.choices("--stores", v, List.of("memory", "je"));
        case "--entries" -> entries = a.numbers("--entries", v, 1);
        case "--keys" -> keys = a.numbers("--keys", v, 0);
        case "--rounds" -> rounds = Math.toIntExact(a.number("--rounds", v, 1));
        case "--value" -> valueBytes = Math.toIntExact(a.number("--value", v, 1));
        case "--dir" -> dir = Path.of(v);
        default -> throw a.fail("unknown option " + args[i] + ": use --stores, --entries, --keys, --rounds, --value"
            + " or --dir");
      }
    }
    System.out.printf("# java %s, %s, max heap %d MB, %d cores; %d-byte values, %d rounds%n",
        System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
        Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), valueBytes, rounds);
    System.out.println("| store | log entries | snapshot keys | round | watchdog task ms (restored + build)"
        + " | restored ms | build ms | start task ms | re-apply ms | longest turn ms | GC ms in the three | restart replay ms |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (String kind : stores) {
      for (int k : keys) {
        for (int n : entries) {
          Path d = !kind.equals("je") ? null
              : dir != null ? dir.resolve("je-" + n + "-" + k) : Files.createTempDirectory("nukv-rebuild-bench-je");
          try (Replica r = new Replica(kind, d, n, k, valueBytes)) {
            for (int round = 1; round <= rounds; round++) {
              Result x = r.rebuild();
              double restartMs = r.restartReplay();
              System.out.printf("| %s | %,d | %,d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %.1f |%n", kind,
                  n, k, round, x.restoredMs + x.buildMs, x.restoredMs, x.buildMs, x.startMs, x.reapplyMs,
                  Math.max(x.restoredMs + x.buildMs, Math.max(x.startMs, x.reapplyMs)), x.gcMs, restartMs);
            }
          }
        }
      }
    }
  }

  record Result(double restoredMs, double buildMs, double startMs, double reapplyMs, long gcMs) {}

  /** One replica's journal (in a store) and the RaftNode rebuilt from it. */
  private static final class Replica implements AutoCloseable {
    final String kind;
    final Path dir;
    final VersionedStore<Stored> store;
    final RaftJournal<Stored> journal;
    final RaftCodec codec = new RaftCodec(MODELS, Op.parser());
    final RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 1));
    final RaftCodec.Endpoint leader = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    final RaftConfig config;
    final Loop loop = new Loop();
    /** The last index the replica applied: everything in the journal (the node before the rebuild applied it). */
    final long applied;
    RaftNode node;

    Replica(String kind, Path dir, int entries, int keys, int valueBytes) throws IOException {
      this.kind = kind;
      this.dir = dir;
      if (kind.equals("je")) {
        Files.createDirectories(dir);
        store = new JeStore<>(NuKV.RECORD, dir, Durability.NONE);
      } else if (kind.equals("memory")) {
        store = new InMemoryStore<>(NuKV.RECORD);
      } else {
        throw new IllegalArgumentException("unknown store " + kind + ": use memory or je");
      }
      int every = entries + 1;
      config = RaftConfig.newBuilder().setLeaderElectionTimeoutMillis(500).setLeaderHeartbeatPeriodSecs(1)
          .setLeaderHeartbeatTimeoutSecs(2).setCommitCountToTakeSnapshot(every).build();
      byte[] v = new byte[valueBytes];
      Arrays.fill(v, (byte) 'x');
      ByteString value = ByteString.copyFrom(v);
      List<RaftEndpoint> members = List.of(leader, self, new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
      RaftGroupMembersView view = MODELS.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members)
          .setVotingMembers(members).build();
      journal = NuKVJournal.open(store, codec);
      journal.persistAndFlushLocalEndpoint(MODELS.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
          .setVoting(true).build());
      journal.persistAndFlushInitialGroupMembers(view);
      journal.persistAndFlushTerm(MODELS.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(leader)
          .build());
      long index = 0;
      long t = 1;
      if (keys > 0) {
        index = every; // the snapshot MicroRaft took at the last multiple of snapshotEvery
        int chunks = (keys + NuKVServer.SNAPSHOT_CHUNK_KEYS - 1) / NuKVServer.SNAPSHOT_CHUNK_KEYS;
        for (int c = 0; c < chunks; c++) {
          SnapshotPart.Builder part = SnapshotPart.newBuilder();
          if (c == 0) {
            part.addSv(index).addSv(0);
          }
          for (int i = c * NuKVServer.SNAPSHOT_CHUNK_KEYS; i < Math.min(keys, (c + 1) * NuKVServer.SNAPSHOT_CHUNK_KEYS);
              i++) {
            part.addOps(Op.newBuilder().setKey(key(i)).setVersion(Version.newBuilder().setValue(value).setT(++t)
                .setDc(0).setIdx(1 + i % index)).setLocalIdx(1 + i % index).setLocalT(t));
          }
          journal.persistSnapshotChunk(MODELS.createSnapshotChunkBuilder().setTerm(1).setIndex(index)
              .setOperation(part.build().toByteString()).setSnapshotChunkIndex(c).setSnapshotChunkCount(chunks)
              .setGroupMembersView(view).build());
        }
      }
      List<LogEntry> batch = new ArrayList<>();
      for (int i = 0; i < entries; i++) {
        index++;
        Version ver = Version.newBuilder().setValue(value).setT(++t).setDc(0).setIdx(index).build();
        batch.add(MODELS.createLogEntryBuilder().setIndex(index).setTerm(1)
            .setOperation(Op.newBuilder().setKey(key(i)).setVersion(ver)
                .setPrev(index - 1).build()).build());
        if (batch.size() == 1_000) {
          journal.persistLogEntries(batch);
          batch.clear();
        }
      }
      journal.persistLogEntries(batch);
      applied = index;
    }

    static String key(long i) {
      return "user" + (1_000_000_000L + i * 7_919 % 1_000_000_000L);
    }

    /** One rebuild, as RaftWatchdog.check does it: the old node terminated, the new one restored, started and caught up. */
    Result rebuild() {
      long gc0 = NuKVSnapshotBench.gcMillis();
      if (node != null) {
        node.terminate();
        loop.runAll(); // as in RaftWatchdog.check, the old node's termination runs before the new node's start task
      }
      long t0 = System.nanoTime();
      RestoredRaftState restored = journal.restored();
      long t1 = System.nanoTime();
      Skipping machine = new Skipping(applied);
      node = RaftNode.newBuilder().setGroupId(GROUP).setConfig(config).setExecutor(loop).setTransport(new Drop())
          .setStateMachine(machine).setStore(journal).setModelFactory(MODELS).setRandom(new Random(1))
          .setClock(Clock.systemUTC()).setRestoredState(restored).build();
      long t2 = System.nanoTime();
      node.start();
      loop.runAll();
      long t3 = System.nanoTime();
      RaftMessage heartbeat = MODELS.createAppendEntriesRequestBuilder().setGroupId(GROUP).setSender(leader).setTerm(1)
          .setPreviousLogTerm(1).setPreviousLogIndex(applied).setCommitIndex(applied).setLogEntries(List.of())
          .setQuerySequenceNumber(0).setFlowControlSequenceNumber(0).build();
      node.handle(heartbeat);
      loop.runAll();
      long t4 = System.nanoTime();
      if (machine.skipped != applied - restoredSnapshotIndex(restored)) {
        throw new IllegalStateException("the rebuilt node applied " + machine.skipped + " entries again, expected "
            + (applied - restoredSnapshotIndex(restored)));
      }
      return new Result((t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6, (t4 - t3) / 1e6,
          NuKVSnapshotBench.gcMillis() - gc0);
    }

    private static long restoredSnapshotIndex(RestoredRaftState r) {
      return r.getSnapshotEntry() == null ? 0 : r.getSnapshotEntry().getIndex();
    }

    /** What a restart replays before its RaftNode exists: the journal read from the store into a mirror, restored. */
    double restartReplay() {
      long t0 = System.nanoTime();
      NuKVJournal.open(store, codec).restored();
      return (System.nanoTime() - t0) / 1e6;
    }

    @Override
    public void close() throws IOException {
      if (node != null) {
        node.terminate();
        loop.runAll();
      }
      store.close();
      if (kind.equals("je")) {
        try (var files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** MicroRaft's executor on the calling thread: tasks run when {@link #runAll} is called; timers are dropped. */
  private static final class Loop implements RaftNodeExecutor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    @Override
    public void submit(Runnable task) {
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delay, TimeUnit unit) {
      // a timer (heartbeat, election timeouts, reports): none is due within the measured turns
    }

    void runAll() {
      for (Runnable r = tasks.poll(); r != null; r = tasks.poll()) {
        r.run();
      }
    }
  }

  private static final class Drop implements Transport {
    @Override
    public void send(RaftEndpoint target, RaftMessage message) {}

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
      return true;
    }
  }

  /** RaftGroup's state machine after a rebuild: every entry and snapshot at or below what it applied is skipped. */
  private static final class Skipping implements StateMachine {
    final long applied;
    long skipped;

    Skipping(long applied) {
      this.applied = applied;
    }

    @Override
    public Object runOperation(long commitIndex, Object operation) {
      if (commitIndex <= applied) {
        skipped++;
        return commitIndex;
      }
      throw new IllegalStateException("entry " + commitIndex + " is past the journal's last " + applied);
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
      throw new IllegalStateException("no snapshot point lies within the log (snapshotEvery is entries + 1)");
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {
      if (commitIndex > applied) {
        throw new IllegalStateException("snapshot " + commitIndex + " is past the journal's last " + applied);
      }
    }

    @Override
    public Object getNewTermOperation() {
      return Op.newBuilder().setNewTerm(true).setKey("bench").build();
    }
  }
}
