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
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.kvlab.api.NodeId;
import org.kvlab.store.Durability;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.JeStore;
import org.kvlab.store.VersionedStore;

/**
 * How long taking a Raft snapshot stalls a NuKV replica's event loop (issue 15), and how many bytes it holds.
 *
 * <p>MicroRaft 0.7 takes a snapshot synchronously on the node's executor, right after applying every
 * {@code snapshotEvery}-th commit (RaftNodeImpl.takeSnapshot): it calls the state machine's takeSnapshot, then
 * persists every chunk through the RaftStore one by one (here {@link JournalRaftStore}, whose last chunk triggers
 * the journal's compaction), and keeps the chunk objects in memory as the log's snapshot entry. This program does
 * that same sequence, on a store holding N user keys and a journal holding the previous snapshot and the
 * {@code snapshotEvery} log entries since, and times it with the wall clock: that is the event-loop pause (GC
 * during it included, and shown apart).
 *
 * <p>Two implementations, interleaved in each round (the order alternates): "before", the snapshot code this
 * change replaced (copied verbatim below: every key's newest version read from the store, and a compaction that
 * writes the snapshot's chunks to the journal a second time), and "after" ({@link SnapshotSource}: only keys
 * changed since the last snapshot are read; the chunks stay where they were first written).
 *
 * <p>Usage: {@code NuKVSnapshotBench [--stores memory,je] [--keys 10000,100000,1000000] [--every 50000]
 * [--rounds 3] [--value 64] [--dir DIR]}. Writes between snapshots go to uniformly random keys (each commit one
 * PUT), so about {@code min(N, every)} keys change between two snapshots.
 */
public final class NuKVSnapshotBench {
  private static final RaftModelFactory MODELS = new DefaultRaftModelFactory();

  private NuKVSnapshotBench() {}

  public static void main(String[] args) throws IOException {
    List<String> stores = List.of("memory", "je");
    List<Integer> sizes = List.of(10_000, 100_000, 1_000_000);
    int every = 50_000;
    int rounds = 3;
    int valueBytes = 64;
    Path dir = null;
    for (int i = 0; i < args.length; i += 2) {
      String v = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--stores" -> stores = List.of(v.split(","));
        case "--keys" -> sizes = Arrays.stream(v.split(",")).map(Integer::parseInt).toList();
        case "--every" -> every = Integer.parseInt(v);
        case "--rounds" -> rounds = Integer.parseInt(v);
        case "--value" -> valueBytes = Integer.parseInt(v);
        case "--dir" -> dir = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + ": use --stores, --keys,"
            + " --every, --rounds, --value or --dir");
      }
    }
    System.out.printf("# java %s, %s, max heap %d MB, %d cores; snapshotEvery %d, %d-byte values, %d rounds%n",
        System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
        Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), every, valueBytes, rounds);
    System.out.println("| store | keys | round | impl | pause ms | takeSnapshot ms | persist chunks ms"
        + " | compaction ms | GC ms in pause | keys read | chunks | snapshot bytes | journal bytes written |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (String kind : stores) {
      for (int n : sizes) {
        Path d = !kind.equals("je") ? null
            : dir != null ? dir.resolve("je-" + n) : Files.createTempDirectory("nukv-snap-bench-je-" + n);
        try (Bench b = new Bench(kind, d, n, every, valueBytes)) {
          b.load();
          for (int r = 1; r <= rounds; r++) {
            boolean beforeFirst = r % 2 == 1;
            for (boolean before : beforeFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
              Result x = b.step(before);
              System.out.printf("| %s | %,d | %d | %s | %.1f | %.1f | %.1f | %.1f | %d | %,d | %d | %,d | %,d |%n", kind,
                  n, r, before ? "before" : "after", x.totalMs, x.takeMs, x.persistMs - x.compactMs, x.compactMs,
                  x.gcMs, x.reads, x.chunks, x.bytes, x.journalBytes);
            }
          }
        }
      }
    }
  }

  /**
   * One snapshot: the whole pause, the state machine's takeSnapshot, persisting the chunks (compaction included) and
   * the compaction alone (the last chunk's persist, which completes the snapshot and compacts the journal).
   */
  record Result(double totalMs, double takeMs, double persistMs, double compactMs, long gcMs, long reads, int chunks,
      long bytes, long journalBytes) {}

  /** One replica's state: a store with N keys, its journal, and both snapshot implementations' key sets. */
  private static final class Bench implements AutoCloseable {
    final String kind;
    final Path dir;
    final int n;
    final int every;
    final ByteString value;
    final CountingStore store;
    final SnapshotSource source;
    final TreeSet<String> keys = new TreeSet<>(); // the replaced implementation's key set
    final SplittableRandom random = new SplittableRandom(1);
    final RaftGroupMembersView view;
    final RaftCodec.Endpoint self = new RaftCodec.Endpoint(NodeId.of(0, 0, 0));
    long index;
    long t = 1;
    List<SnapshotChunk> held = List.of(); // what MicroRaft keeps: the last snapshot's chunks

    Bench(String kind, Path dir, int n, int every, int valueBytes) throws IOException {
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
      List<RaftEndpoint> members = List.of(self, new RaftCodec.Endpoint(NodeId.of(0, 0, 1)),
          new RaftCodec.Endpoint(NodeId.of(0, 0, 2)));
      this.view = MODELS.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members)
          .setVotingMembers(members).build();
    }

    static String key(long i) {
      return "user" + (1_000_000_000L + i * 7_919 % 1_000_000_000L);
    }

    JournalRaftStore journal(boolean rewriteChunks) {
      return new JournalRaftStore(store, rewriteChunks);
    }

    /** N keys written (as a replica that applied N commits would hold them), then a first snapshot. */
    void load() {
      JournalRaftStore journal = journal(false);
      journal.persistAndFlushLocalEndpoint(MODELS.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(self)
          .setVoting(true).build());
      journal.persistAndFlushInitialGroupMembers(view);
      journal.persistAndFlushTerm(MODELS.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(self).build());
      for (int i = 0; i < n; i++) {
        write(key(i), false, journal);
      }
      snapshot(journal, false);
    }

    /** One commit: a PUT of a random key, its log entry in the journal, the key's new version in the store. */
    void write(String key, boolean logged, JournalRaftStore journal) {
      index++;
      Version v = Version.newBuilder().setValue(value).setT(++t).setDc(0).setIdx(index).build();
      if (logged) {
        journal.persistLogEntries(List.of(MODELS.createLogEntryBuilder().setIndex(index).setTerm(1)
            .setOperation(Op.newBuilder().setKey(key).setVersion(v).build()).build()));
      }
      keys.add(key);
      source.add(key);
      store.put(key, Stored.newBuilder().setVersion(v).build());
    }

    /**
     * {@code every} commits (random keys), logged in the journal reopened from the store with the compaction of the
     * implementation measured, then the snapshot MicroRaft takes at the last of them.
     */
    Result step(boolean before) {
      JournalRaftStore journal = journal(before);
      for (int i = 0; i < every; i++) {
        write(key(random.nextInt(n)), true, journal);
      }
      return snapshot(journal, before);
    }

    Result snapshot(JournalRaftStore journal, boolean before) {
      long[] sv = {index, 0};
      List<Object> parts = new ArrayList<>();
      long gc0 = gcMillis();
      long journal0 = store.journalBytes;
      long t0 = System.nanoTime();
      // RaftNodeImpl.takeSnapshot: the state machine's chunks, then each chunk persisted, then kept in memory.
      int reads;
      if (before) {
        reads = oldSnapshot(keys, store, sv, parts::add);
      } else {
        source.take(sv, NuKVServer.SNAPSHOT_CHUNK_KEYS, k -> null, parts::add);
        reads = source.lastReads();
      }
      long t1 = System.nanoTime();
      List<SnapshotChunk> chunks = new ArrayList<>(parts.size());
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
      if (before) {
        // Unmeasured: the source sees a snapshot taken here too, as it would in a server running it, so that the
        // next "after" snapshot reads only the keys changed since this one.
        source.take(sv, NuKVServer.SNAPSHOT_CHUNK_KEYS, k -> null, p -> { });
      }
      long bytes = 0;
      for (Object p : parts) {
        bytes += ((SnapshotPart) p).getSerializedSize();
      }
      return new Result((t2 - t0) / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - last) / 1e6, gcMillis() - gc0, reads,
          parts.size(), bytes, store.journalBytes - journal0);
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

  static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }

  /**
   * NuKVServer.snapshot before SnapshotSource (the commit before it), with the server's fields as parameters: the
   * newest version of every key read from the store, {@link NuKVServer#SNAPSHOT_CHUNK_KEYS} keys a chunk.
   */
  static int oldSnapshot(TreeSet<String> keys, VersionedStore<Stored> store, long[] sv, Consumer<Object> chunks) {
    SnapshotPart.Builder part = SnapshotPart.newBuilder();
    for (long x : sv) {
      part.addSv(x);
    }
    boolean emitted = false;
    for (String key : keys) {
      Optional<Stored> newest = store.newest(key);
      if (newest.isPresent()) {
        part.addOps(Op.newBuilder().setKey(key).setVersion(newest.get().getVersion()));
      }
      if (part.getOpsCount() >= NuKVServer.SNAPSHOT_CHUNK_KEYS) {
        chunks.accept(part.build());
        emitted = true;
        part = SnapshotPart.newBuilder();
      }
    }
    if (!emitted || part.getOpsCount() > 0) {
      chunks.accept(part.build());
    }
    return keys.size();
  }

  /** A store that counts the bytes of journal records put into it. */
  private static final class CountingStore extends org.kvlab.store.ForwardingStore<Stored> {
    long journalBytes;

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
  }
}
