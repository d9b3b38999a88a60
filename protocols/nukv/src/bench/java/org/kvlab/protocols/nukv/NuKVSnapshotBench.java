package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.kvlab.api.NodeId;
import org.kvlab.consensus.raft.RaftCodec;
import org.kvlab.consensus.raft.RaftJournal;
import org.kvlab.eval.ProgramArgs;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.JeStore;
import org.kvlab.store.VersionedStore;

/**
 * How long taking a Raft snapshot stalls a NuKV replica's event loop (issue 15), and how many bytes it holds.
 *
 * <p>MicroRaft 0.7 takes a snapshot synchronously on the node's executor, right after applying every
 * {@code snapshotEvery}-th commit (RaftNodeImpl.takeSnapshot): it calls the state machine's takeSnapshot, then
 * persists every chunk through the RaftStore one by one (here the group's RaftJournal, whose last chunk triggers
 * the journal's compaction), and keeps the chunk objects in memory as the log's snapshot entry. This program does
 * that same sequence, on a store holding N user keys and a journal holding the previous snapshot and the
 * {@code snapshotEvery} log entries since, and times it with the wall clock: that is the event-loop pause (GC
 * during it included, and shown apart).
 *
 * <p>Implementations (the {@code --impls} given, interleaved in each round, their order rotating): {@code encoded},
 * {@link SnapshotSource} (parts handed over as their encodings, unchanged keys' entries copied as bytes from the last
 * snapshot, changed keys' versions given by the writes, as the apply path gives them) with the chunks written in the
 * snapshot's turn; and {@code held}, the replica's way: {@code encoded} with the chunks held by the journal in the
 * snapshot's turn and written after it, {@link NuKVServer#SNAPSHOT_WRITE_BYTES} a turn, the compaction with the last
 * (each of those turns timed apart, back to back here, where a server runs them a millisecond apart between its other
 * work). One journal runs throughout, switched between them before each snapshot. The earlier implementations this
 * program compared them with (the snapshot code before issue 15, its compaction that rewrote the chunks and pruned by
 * parsing, pruning at once, and the source of Op objects) were deleted when the Raft group moved to kvlab-consensus;
 * the program that compares them is in git history at commit 51b36c9 (docs/benchmarks/log/nukv-history.md).
 *
 * <p>Besides the pause, each row shows the time the store spent pruning in it, and in the {@code every} commits that
 * follow the snapshot (where the deferred prune runs; measured before the next snapshot, whichever implementation
 * takes it), and the bytes the pause allocated; and the turns that write held chunks after the pause ({@code held}
 * only): how many, the longest, all of them together and the GC in them; and the CPU time of the pause and of the
 * write turns (the event-loop thread's, without the collector's thread and the time other threads ran). The longest
 * turn of an implementation is the larger of its pause and its longest write turn. With {@code --heap}, a full GC
 * after each snapshot (outside the pause) measures the heap still in use, the snapshot MicroRaft holds included
 * (compare runs with one implementation each, on the memory store: the store then holds the same in both).
 *
 * <p>Usage: {@code scripts/bench/nukv-snapshot-bench} (or {@code scripts/bench/eval nukv NuKVSnapshotBench})
 * {@code [--stores memory,je] [--keys 10000,100000,1000000] [--every 50000] [--rounds 3] [--impls encoded,held]
 * [--value 64] [--dir DIR] [--heap]}. Writes between snapshots go to
 * uniformly random keys (each commit one PUT), so about {@code min(N, every)} keys change between two snapshots.
 */
public final class NuKVSnapshotBench {
  private static final RaftModelFactory MODELS = new DefaultRaftModelFactory();
  /** The implementations {@code --impls} takes (see the class comment). */
  private static final List<String> IMPLS = List.of("encoded", "held");

  private NuKVSnapshotBench() {}

  public static void main(String[] args) throws IOException {
    ProgramArgs a = ProgramArgs.of("nukv", "NuKVSnapshotBench", "[--stores memory,je] [--keys 10000,100000,1000000]"
        + " [--every 50000] [--rounds 3] [--impls encoded,held] [--value 64] [--dir DIR] [--heap]", args,
        Integer.MAX_VALUE);
    if (a == null) {
      return;
    }
    List<String> stores = List.of("memory", "je");
    List<Integer> sizes = List.of(10_000, 100_000, 1_000_000);
    int every = 50_000;
    int rounds = 3;
    int valueBytes = 64;
    List<String> impls = List.of("encoded", "held");
    Path dir = null;
    boolean heap = false;
    for (int i = 0; i < args.length; i += 2) {
      if (args[i].equals("--heap")) {
        heap = true;
        i--;
        continue;
      }
      if (i + 1 >= args.length) {
        throw a.fail("option " + args[i] + " needs a value");
      }
      String v = args[i + 1];
      switch (args[i]) {
        case "--stores" -> stores = a.choices("--stores", v, List.of("memory", "je"));
        case "--keys" -> sizes = a.numbers("--keys", v, 1);
        case "--every" -> every = Math.toIntExact(a.number("--every", v, 1));
        case "--rounds" -> rounds = Math.toIntExact(a.number("--rounds", v, 1));
        case "--value" -> valueBytes = Math.toIntExact(a.number("--value", v, 1));
        case "--impls" -> impls = a.choices("--impls", v, IMPLS);
        case "--dir" -> dir = Path.of(v);
        default -> throw a.fail("unknown option " + args[i] + ": use --stores, --keys, --every, --rounds, --impls,"
            + " --value, --dir or --heap");
      }
    }
    System.out.printf("# java %s, %s, max heap %d MB, %d cores; snapshotEvery %d, %d-byte values, %d rounds%n",
        System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
        Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), every, valueBytes, rounds);
    System.out.println("| store | keys | round | impl | pause ms | takeSnapshot ms | persist chunks ms"
        + " | compaction ms | prune ms in pause | GC ms in pause | keys read | chunks | snapshot bytes"
        + " | journal bytes written | prune ms on the next commits | next commits ms | journal records after"
        + " | keys encoded | MB allocated in pause | heap MB after GC | write turns | longest write turn ms"
        + " | write turns ms | GC ms in write turns | pause CPU ms | longest write turn CPU ms | longest is the last"
        + " | write turns CPU ms |");
    System.out.println("|---".repeat(28) + "|");
    for (String kind : stores) {
      for (int n : sizes) {
        Path d = !kind.equals("je") ? null
            : dir != null ? dir.resolve("je-" + n) : Files.createTempDirectory("nukv-snap-bench-je-" + n);
        try (Bench b = new Bench(kind, d, n, every, valueBytes, impls, heap)) {
          b.load();
          b.commits();
          Result pending = null;
          int step = 0;
          for (int r = 1; r <= rounds; r++) {
            for (int i = 0; i < impls.size(); i++) {
              String impl = impls.get((i + step) % impls.size());
              if (pending != null) {
                print(kind, n, pending, b.commits());
              }
              pending = b.snapshot(impl, r);
            }
            step++;
          }
          print(kind, n, pending, b.commits());
        }
      }
    }
  }

  private static void print(String kind, int n, Result x, Commits next) {
    System.out.printf("| %s | %,d | %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %,d | %d | %,d | %,d | %.1f"
        + " | %.1f | %,d | %,d | %.1f | %s | %d | %.1f | %.1f | %d | %.1f | %.1f | %s | %.1f |%n", kind, n, x.round,
        x.impl, x.totalMs, x.takeMs,
        x.persistMs - x.compactMs, x.compactMs, x.pruneMs, x.gcMs, x.reads, x.chunks, x.bytes, x.journalBytes,
        next.pruneMs, next.totalMs, x.records, x.encoded, x.allocated / 1e6,
        x.heapMb < 0 ? "" : String.format("%.1f", x.heapMb), x.turns, x.longestTurnMs, x.turnsMs, x.turnsGcMs,
        x.cpuMs, x.longestTurnCpuMs, x.turns == 0 ? "" : x.longestIsLast ? "yes" : "no", x.turnsCpuMs);
  }

  /**
   * One snapshot: the whole pause, the state machine's takeSnapshot, persisting the chunks (compaction included) and
   * the compaction alone (the last chunk's persist, which completes the snapshot and compacts the journal); with
   * {@code held}, the turns after the pause that write the chunks (the compaction in the last).
   */
  record Result(String impl, int round, double totalMs, double takeMs, double persistMs, double compactMs,
      double pruneMs, long gcMs, long reads, int chunks, long bytes, long journalBytes, long records, long encoded,
      long allocated, double heapMb, int turns, double longestTurnMs, double turnsMs, long turnsGcMs, double cpuMs,
      double longestTurnCpuMs, boolean longestIsLast, double turnsCpuMs) {}

  /** The {@code every} commits between two snapshots: their whole time and the store's pruning in it. */
  record Commits(double totalMs, double pruneMs) {}

  /** One replica's state: a store with N keys, its journal, and the key sets of the implementations given. */
  private static final class Bench implements AutoCloseable {
    final String kind;
    final Path dir;
    final int n;
    final int every;
    final ByteString value;
    final CountingStore store;
    final SnapshotSource source;
    final boolean heap;
    final SplittableRandom random = new SplittableRandom(1);
    final RaftGroupMembersView view;
    final RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    long index;
    long t = 1;
    List<SnapshotChunk> held = List.of(); // what MicroRaft keeps: the last snapshot's chunks
    RaftJournal<Stored> journal;
    final String first;

    Bench(String kind, Path dir, int n, int every, int valueBytes, List<String> impls, boolean heap)
        throws IOException {
      this.kind = kind;
      this.dir = dir;
      this.n = n;
      this.every = every;
      byte[] v = new byte[valueBytes];
      Arrays.fill(v, (byte) 'x');
      this.value = ByteString.copyFrom(v);
      VersionedStore<Stored> inner;
      if (kind.equals("je")) {
        Files.createDirectories(dir);
        inner = new JeStore<>(NuKV.RECORD, dir, Durability.NONE);
      } else if (kind.equals("memory")) {
        inner = new InMemoryStore<>(NuKV.RECORD);
      } else {
        throw new IllegalArgumentException("unknown store " + kind + ": use memory or je");
      }
      this.store = new CountingStore(inner);
      this.source = new SnapshotSource(store);
      this.heap = heap;
      this.first = impls.get(0);
      List<RaftEndpoint> members = List.of(self, new RaftCodec.Endpoint(NodeId.of(0, 0, 1)),
          new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
      this.view = MODELS.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members)
          .setVotingMembers(members).build();
    }

    static String key(long i) {
      return "user" + (1_000_000_000L + i * 7_919 % 1_000_000_000L);
    }

    /** N keys written (as a replica that applied N commits would hold them), then a first snapshot. */
    void load() {
      journal = NuKVJournal.open(store, new RaftCodec(MODELS, Op.parser()));
      journal.persistAndFlushLocalEndpoint(MODELS.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
          .setVoting(true).build());
      journal.persistAndFlushInitialGroupMembers(view);
      journal.persistAndFlushTerm(MODELS.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(self).build());
      for (int i = 0; i < n; i++) {
        write(key(i), false);
      }
      snapshot(first, 0);
    }

    /** One commit: a PUT of a random key, its log entry in the journal, the key's new version in the store. */
    void write(String key, boolean logged) {
      index++;
      Version v = Version.newBuilder().setValue(value).setT(++t).setDc(0).setIdx(index).build();
      if (logged) {
        journal.persistLogEntries(List.of(MODELS.createLogEntryBuilder().setIndex(index).setTerm(1)
            .setOperation(Op.newBuilder().setKey(key).setVersion(v).build()).build()));
      }
      store.put(key, Stored.newBuilder().setVersion(v).build());
      source.put(key, v);
    }

    /** {@code every} commits (random keys), logged in the journal: the commits between two snapshots. */
    Commits commits() {
      double prune0 = store.pruneMs;
      long t0 = System.nanoTime();
      for (int i = 0; i < every; i++) {
        write(key(random.nextInt(n)), true);
      }
      return new Commits((System.nanoTime() - t0) / 1e6, store.pruneMs - prune0);
    }

    /** The snapshot MicroRaft takes at the last commit, with the implementation {@code impl}. */
    Result snapshot(String impl, int round) {
      boolean hold = impl.equals("held");
      journal.holdOwnSnapshots(hold);
      long[] sv = {index, 0};
      List<ByteString> parts = new ArrayList<>();
      long gc0 = gcMillis();
      long journal0 = store.journalBytes;
      double prune0 = store.pruneMs;
      long alloc0 = allocatedBytes();
      long cpu0 = cpuNanos();
      long t0 = System.nanoTime();
      // RaftNodeImpl.takeSnapshot: the state machine's chunks, then each chunk persisted, then kept in memory.
      source.take(sv, NuKVServer.SNAPSHOT_CHUNK_KEYS, k -> null, parts::add);
      int reads = source.lastReads();
      long keysEncoded = source.lastEncoded();
      long t1 = System.nanoTime();
      List<SnapshotChunk> chunks = new ArrayList<>(parts.size());
      if (hold) {
        journal.taking(index); // RaftGroup's takeSnapshot announces it before the state machine's chunks
      }
      long last = t1;
      for (int i = 0; i < parts.size(); i++) {
        SnapshotChunk c = MODELS.createSnapshotChunkBuilder().setTerm(1).setIndex(index).setOperation(parts.get(i))
            .setSnapshotChunkIndex(i).setSnapshotChunkCount(parts.size()).setGroupMembersView(view).build();
        chunks.add(c);
        last = System.nanoTime();
        journal.persistSnapshotChunk(c);
      }
      held = chunks;
      long t2 = System.nanoTime();
      double cpuMs = (cpuNanos() - cpu0) / 1e6;
      long allocated = allocatedBytes() - alloc0;
      double pruneMs = store.pruneMs - prune0;
      long gcMs = gcMillis() - gc0;
      // RaftGroup.writeSnapshot's turns (held only; none is left otherwise), each timed.
      int turns = 0;
      double longestTurnMs = 0;
      double longestTurnCpuMs = 0;
      boolean longestIsLast = false;
      long turns0 = System.nanoTime();
      long turnsGc0 = gcMillis();
      long turnsCpu0 = cpuNanos();
      while (journal.held() > 0) {
        long c0 = cpuNanos();
        long s0 = System.nanoTime();
        int left = journal.writeHeld(NuKVServer.SNAPSHOT_WRITE_BYTES);
        double ms = (System.nanoTime() - s0) / 1e6;
        longestTurnCpuMs = Math.max(longestTurnCpuMs, (cpuNanos() - c0) / 1e6);
        if (ms > longestTurnMs) {
          longestTurnMs = ms;
          longestIsLast = left == 0;
        }
        turns++;
      }
      double turnsMs = (System.nanoTime() - turns0) / 1e6;
      double turnsCpuMs = (cpuNanos() - turnsCpu0) / 1e6;
      long turnsGcMs = gcMillis() - turnsGc0;
      long bytes = 0;
      for (ByteString p : parts) {
        bytes += p.size();
      }
      double heapMb = -1;
      if (heap) {
        parts.clear();
        System.gc();
        heapMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1e6;
      }
      return new Result(impl, round, (t2 - t0) / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - last) / 1e6, pruneMs,
          gcMs, reads, chunks.size(), bytes, store.journalBytes - journal0, journal.storedRecords(), keysEncoded,
          allocated, heapMb, turns, longestTurnMs, turnsMs, turnsGcMs, cpuMs, longestTurnCpuMs, longestIsLast,
          turnsCpuMs);
    }

    @Override
    public void close() throws IOException {
      store.close();
      if (kind.equals("je")) {
        try (var files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** Bytes this thread allocated so far (HotSpot's per-thread counter). */
  static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  /** CPU time of this thread so far (what a turn costs without the time the loaded machine gave other threads). */
  static long cpuNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  /** A store that counts the bytes of journal records put into it, and times its prunes. */
  private static final class CountingStore extends org.kvlab.store.ForwardingStore<Stored> {
    long journalBytes;
    double pruneMs;

    CountingStore(VersionedStore<Stored> inner) {
      super(inner);
    }

    @Override
    public void put(String key, Stored record) {
      if (record.hasJournal()) {
        journalBytes += record.getSerializedSize();
      }
      inner.put(key, record);
    }

    @Override
    public int prune(String key, Predicate<? super Stored> stable) {
      long t0 = System.nanoTime();
      int removed = inner.prune(key, stable);
      pruneMs += (System.nanoTime() - t0) / 1e6;
      return removed;
    }

    @Override
    public int pruneRange(String key, byte[] from, byte[] below) {
      long t0 = System.nanoTime();
      int removed = inner.pruneRange(key, from, below);
      pruneMs += (System.nanoTime() - t0) / 1e6;
      return removed;
    }
  }
}
