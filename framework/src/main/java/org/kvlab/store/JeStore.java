package org.kvlab.store;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.kvlab.api.RecordType;

/**
 * A {@link VersionedStore} in Berkeley DB Java Edition: one environment per store (per server), one
 * database {@value #DATABASE} <b>without sorted duplicates</b>.
 *
 * <p><b>Layout.</b> JE key = {@code [4-byte big-endian length n of the key's UTF-8][n bytes of UTF-8]
 * [version key]}, value = the record's protobuf bytes. JE orders keys by unsigned bytes, so the versions
 * of one key are adjacent and ordered by version key, and the length prefix keeps keys that are prefixes
 * of one another ("a", "ab") apart. Every version has its own JE key, so JE never compares two versions
 * as "equal duplicates" and drops one (the DKVF duplicate-comparator trap); {@link #put} reads the slot
 * first and refuses a different record under an existing version key.
 *
 * <p><b>Non-transactional environment</b> (deliberate). Each put or delete is a single-record operation,
 * which JE logs atomically by itself; the store never needs multi-record atomicity (a crash in the middle
 * of {@link #prune} only leaves some old versions behind, which is harmless). JE writes the log
 * sequentially and recovery replays every non-transactional write found in the log, so what survives a
 * crash is a prefix of the writes in put order. {@link #put} only appends to JE's in-memory log buffer
 * (no I/O wait, no fsync); {@link #sync()} is {@code Environment.flushLog(true)}, which writes and fsyncs
 * the log, making every earlier put/delete durable. A transactional environment with NO_SYNC commits
 * gives the same guarantees with the extra cost of a transaction and a commit record per put.
 * {@link #close()} closes the environment, which checkpoints and fsyncs.
 *
 * <p><b>Cache.</b> The environment uses JE's <em>shared</em> cache, so several servers in one JVM (local
 * clusters, tests) share one cache instead of each taking its own slice. The first environment opened
 * in the JVM sets its size: {@value #CACHE_PERCENT}% of the max heap (JE's default, 60% per environment,
 * would overcommit the heap with a few servers). Log files are {@value #LOG_FILE_MB} MB (JE's default is
 * 10 MB): fewer files and file switches for benchmark-sized logs; the cleaner still reclaims space file
 * by file. JE's statistics capture and its daily verifier are off (background work that would land in idle-cost
 * and benchmark measurements), and so are its log flusher timer and its once-a-second check for deleted log files
 * (wakeups of every idle server; docs/benchmarks/idle-cost.md). The cleaner, checkpointer, IN compressor and
 * evictor run as JE configures them: they keep the log's size and the cache bounded, and cost six idle servers
 * together under half a millisecond of CPU a second. Any JE parameter can be overridden with a {@code je.properties} file in the store directory.
 *
 * <p><b>Threading.</b> Called from one event loop thread, except {@link #sync()}, which may run
 * concurrently on the group-commit thread (JE supports this; no lock is taken around reads or puts).
 * {@code sync()} and {@code close()} synchronize with each other, so a sync racing a close is safe and a
 * sync after close is a no-op (close already made everything durable). Under durability none, a daemon
 * thread per store writes the log buffer in the background (see the constructor), under the same lock.
 */
public final class JeStore<R extends Message> implements VersionedStore<R> {
  static final String DATABASE = "versions";
  static final int CACHE_PERCENT = 25;
  static final int LOG_FILE_MB = 64;
  /**
   * Durability none: how long after a put or delete a background thread writes JE's log buffer to the file (no
   * fsync), so that a killed process (kill -9) loses at most the writes of about this long; the OS has the rest.
   */
  public static final Duration BACKGROUND_WRITE_INTERVAL = Duration.ofMillis(200);
  /** Durability none: how long after a background write the thread fsyncs, bounding what an OS crash or power loss loses. */
  public static final Duration BACKGROUND_FSYNC_INTERVAL = Duration.ofSeconds(10);

  private final RecordType<R> type;
  private final Path dir;
  private final Durability durability;
  private final Environment env;
  private final Database db;
  private final Object lifecycle = new Object();
  private volatile boolean closed;
  private JeChannelLog channelLog; // opened on first use (durability sync only), guarded by lifecycle
  private KitState kitState; // opened on first use, guarded by lifecycle
  private Database kitDb;
  private final ScheduledExecutorService flusher; // durability none only; null otherwise
  /** Durability none: a background write is scheduled (set by the writer thread, cleared by the flusher). */
  private final AtomicBoolean writeArmed = new AtomicBoolean();
  private boolean fsyncScheduled; // flusher thread only
  private final AtomicLong backgroundWrites = new AtomicLong(); // background writes (not fsyncs) so far, for tests

  /**
   * Opens (creating if needed) the store in {@code dir}.
   *
   * @param durability under {@code sync} the runtime decides when to call {@link #sync()}; under
   *     {@code none} a background thread writes the log buffer at most {@link #BACKGROUND_WRITE_INTERVAL}
   *     after a put or delete and fsyncs it at most {@link #BACKGROUND_FSYNC_INTERVAL} after that, and does
   *     nothing while nothing is written (without it, a kill -9 could lose every write still in JE's
   *     buffers, back to the server's start when little was written)
   */
  public JeStore(RecordType<R> type, Path dir, Durability durability) {
    this.type = Objects.requireNonNull(type, "type");
    this.dir = Objects.requireNonNull(dir, "dir");
    this.durability = Objects.requireNonNull(durability, "durability");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create store directory " + dir, e);
    }
    EnvironmentConfig envConfig = new EnvironmentConfig()
        .setAllowCreate(true)
        .setTransactional(false)
        .setSharedCache(true)
        .setConfigParam(EnvironmentConfig.MAX_MEMORY_PERCENT, String.valueOf(CACHE_PERCENT))
        .setConfigParam(EnvironmentConfig.LOG_FILE_MAX, String.valueOf(LOG_FILE_MB * 1024L * 1024L))
        // no statistics thread (it wakes every idle server and writes je.stat.csv files nobody reads), and no
        // daily B-tree verifier (it starts at midnight, in the middle of whatever benchmark runs then)
        .setConfigParam(EnvironmentConfig.STATS_COLLECT, "false")
        .setConfigParam(EnvironmentConfig.ENV_RUN_VERIFIER, "false")
        // no JE log flusher timer (a write every 5 s, an fsync every 20 s): under durability none this store's
        // own flusher writes within 200 ms and fsyncs within 10 s of a write, under sync the runtime fsyncs
        .setConfigParam(EnvironmentConfig.LOG_FLUSH_NO_SYNC_INTERVAL, "0")
        .setConfigParam(EnvironmentConfig.LOG_FLUSH_SYNC_INTERVAL, "0")
        // no timer that polls once a second for log files deleted behind JE's back (a JE file removed by hand
        // from a running server's directory is then found missing when JE next reads it, not within a second)
        .setConfigParam(EnvironmentConfig.LOG_DETECT_FILE_DELETE, "false");
    Environment environment = new Environment(dir.toFile(), envConfig);
    try {
      DatabaseConfig dbConfig = new DatabaseConfig()
          .setAllowCreate(true)
          .setTransactional(false)
          .setSortedDuplicates(false)
          // all versions of a key share the [length][key] prefix: store it once per BIN
          .setKeyPrefixing(true);
      this.db = environment.openDatabase(null, DATABASE, dbConfig);
    } catch (RuntimeException e) {
      environment.close();
      throw e;
    }
    this.env = environment;
    this.flusher = durability == Durability.NONE ? startFlusher(dir) : null;
  }

  private ScheduledExecutorService startFlusher(Path dir) {
    ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "kvlab-je-flush-" + dir.getFileName());
      t.setDaemon(true);
      return t;
    });
    ex.setRemoveOnCancelPolicy(true);
    return ex;
  }

  /**
   * Durability none, after a put or delete: makes sure a background write is scheduled. The flusher only runs
   * when something was written: the first write after a background write schedules the next one
   * {@link #BACKGROUND_WRITE_INTERVAL} later (so no write waits longer than that to reach the file), and the first
   * background write after an fsync schedules the next fsync {@link #BACKGROUND_FSYNC_INTERVAL} later. An idle
   * store's flusher never wakes (it used to, five times a second per server: docs/benchmarks/idle-cost.md). Costs
   * the writer one volatile read per write while a background write is pending (always, under load).
   */
  private void written() {
    if (flusher != null && !writeArmed.get() && writeArmed.compareAndSet(false, true)) {
      try {
        flusher.schedule(this::backgroundWrite, BACKGROUND_WRITE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // closed: close() checkpointed and fsynced everything
      }
    }
  }

  private void backgroundWrite() {
    // Cleared before the write: a put that lands in JE's buffer after this write took it sees the flag clear
    // (JE's log latch orders the two) and schedules the next write.
    writeArmed.set(false);
    try {
      backgroundFlush(false);
      backgroundWrites.incrementAndGet();
      if (!fsyncScheduled) {
        fsyncScheduled = true;
        flusher.schedule(this::backgroundFsync, BACKGROUND_FSYNC_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      // JE invalidated the environment (disk full, I/O error): the event loop's next write reports it; or the
      // executor shut down by close(), which checkpointed and fsynced everything
    }
  }

  private void backgroundFsync() {
    fsyncScheduled = false;
    try {
      backgroundFlush(true);
    } catch (RuntimeException e) {
      // as in backgroundWrite
    }
  }

  /** How many times the background flusher wrote JE's log buffer (durability none; fsyncs not counted; for tests). */
  long backgroundWrites() {
    return backgroundWrites.get();
  }

  /** Writes JE's log buffer to the file system, and fsyncs it if {@code fsync}. No-op after close. */
  void backgroundFlush(boolean fsync) {
    synchronized (lifecycle) {
      if (!closed) {
        env.flushLog(fsync);
      }
    }
  }

  @Override
  public void put(String key, R record) {
    checkOpen();
    Objects.requireNonNull(record, "record");
    byte[] version = Stores.versionKeyOf(type, record);
    byte[] prefix = prefixOf(key);
    byte[] jeKey = Arrays.copyOf(prefix, prefix.length + version.length);
    System.arraycopy(version, 0, jeKey, prefix.length, version.length);
    DatabaseEntry k = new DatabaseEntry(jeKey);
    byte[] bytes = record.toByteArray();
    if (db.putNoOverwrite(null, k, new DatabaseEntry(bytes)) == OperationStatus.SUCCESS) {
      written();
      return;
    }
    // The version key exists: a replay of the same record is fine, anything else is a conflict.
    DatabaseEntry existing = new DatabaseEntry();
    if (db.get(null, k, existing, LockMode.DEFAULT) != OperationStatus.SUCCESS) {
      throw new IllegalStateException("JE reported key " + Stores.show(key) + " as existing, then not found");
    }
    byte[] existingBytes = bytesOf(existing);
    if (Arrays.equals(existingBytes, bytes)) {
      return;
    }
    R existingRecord = parse(key, existingBytes);
    if (!existingRecord.equals(record)) { // equal messages may serialize differently (map order)
      throw Stores.conflict(key, version, existingRecord, record);
    }
  }

  @Override
  public Optional<R> newest(String key, Predicate<? super R> filter) {
    checkOpen();
    Objects.requireNonNull(filter, "filter");
    byte[] prefix = prefixOf(key);
    DatabaseEntry k = new DatabaseEntry();
    DatabaseEntry v = new DatabaseEntry();
    try (Cursor c = db.openCursor(null, null)) {
      for (OperationStatus s = seekNewest(c, prefix, k, v); inKey(s, k, prefix); s = c.getPrev(k, v, null)) {
        R r = parse(key, bytesOf(v));
        if (filter.test(r)) {
          return Optional.of(r);
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public List<R> versions(String key) {
    checkOpen();
    byte[] prefix = prefixOf(key);
    List<R> out = new ArrayList<>();
    DatabaseEntry k = new DatabaseEntry();
    DatabaseEntry v = new DatabaseEntry();
    try (Cursor c = db.openCursor(null, null)) {
      for (OperationStatus s = seekNewest(c, prefix, k, v); inKey(s, k, prefix); s = c.getPrev(k, v, null)) {
        out.add(parse(key, bytesOf(v)));
      }
    }
    return out;
  }

  @Override
  public int prune(String key, Predicate<? super R> stable) {
    checkOpen();
    Objects.requireNonNull(stable, "stable");
    byte[] prefix = prefixOf(key);
    DatabaseEntry k = new DatabaseEntry();
    DatabaseEntry v = new DatabaseEntry();
    DatabaseEntry noData = new DatabaseEntry();
    noData.setPartial(0, 0, true);
    try (Cursor c = db.openCursor(null, null)) {
      k.setData(prefix);
      if (!inKey(c.getSearchKeyRange(k, noData, null), k, prefix)) {
        return 0; // no versions
      }
      // On the oldest version: while the next one is stable, step back, delete, and step on to it.
      int removed = 0;
      while (inKey(c.getNext(k, v, null), k, prefix) && stable.test(parse(key, bytesOf(v)))) {
        c.getPrev(k, noData, null);
        if (c.delete() != OperationStatus.SUCCESS) {
          throw new IllegalStateException("JE could not delete a version of key " + Stores.show(key));
        }
        removed++;
        c.getNext(k, noData, null);
      }
      if (removed > 0) {
        written();
      }
      return removed;
    }
  }

  /**
   * Walks the key's versions from {@code from} with a key-only cursor (a zero-length partial data entry: JE does not
   * fetch the records) and deletes each one below {@code below}: no record is read or parsed.
   */
  @Override
  public int pruneRange(String key, byte[] from, byte[] below) {
    checkOpen();
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(below, "below");
    byte[] prefix = prefixOf(key);
    byte[] bound = concat(prefix, below);
    DatabaseEntry k = new DatabaseEntry(concat(prefix, from));
    DatabaseEntry noData = new DatabaseEntry();
    noData.setPartial(0, 0, true);
    int removed = 0;
    try (Cursor c = db.openCursor(null, null)) {
      for (OperationStatus s = c.getSearchKeyRange(k, noData, null); inKey(s, k, prefix) && below(k, bound);
          s = c.getNext(k, noData, null)) {
        if (c.delete() != OperationStatus.SUCCESS) {
          throw new IllegalStateException("JE could not delete a version of key " + Stores.show(key));
        }
        removed++;
      }
    }
    if (removed > 0) {
      written();
    }
    return removed;
  }

  @Override
  public long keyCount() {
    checkOpen();
    long count = 0;
    DatabaseEntry k = new DatabaseEntry();
    DatabaseEntry noData = new DatabaseEntry();
    noData.setPartial(0, 0, true);
    try (Cursor c = db.openCursor(null, null)) {
      // Visit one version per key: after each, jump past every JE key sharing its [length][key] prefix.
      for (OperationStatus s = c.getFirst(k, noData, null); s == OperationStatus.SUCCESS;
          s = c.getSearchKeyRange(k, noData, null)) {
        count++;
        byte[] jeKey = bytesOf(k);
        k.setData(successor(Arrays.copyOf(jeKey, userPrefixLength(jeKey))));
      }
    }
    return count;
  }

  /** Writes and fsyncs JE's log: every put/delete before this call survives a crash. Thread-safe. */
  @Override
  public void sync() {
    synchronized (lifecycle) {
      if (!closed) {
        env.flushLog(true);
      }
    }
  }

  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      if (flusher != null) {
        flusher.shutdownNow();
      }
      try {
        if (channelLog != null) {
          channelLog.close();
        }
        if (kitDb != null) {
          kitDb.close();
        }
        db.close();
      } finally {
        env.close(); // checkpoints and fsyncs
      }
    }
  }

  /**
   * The durable channel state of the node that owns this store, in two more databases of the same
   * environment ({@value JeChannelLog#OUTBOX} and {@value JeChannelLog#META}, see {@link JeChannelLog}),
   * so {@link #sync()} makes it durable together with the store's versions, with the same crash
   * semantics (a crash keeps a prefix of the writes). The databases are created on the first call; the
   * runtime calls this only under durability {@code sync}.
   */
  public ChannelLog channelLog() {
    synchronized (lifecycle) {
      checkOpen();
      if (channelLog == null) {
        channelLog = new JeChannelLog(env, this::checkOpen);
      }
      return channelLog;
    }
  }

  /**
   * The framework's own state of the node that owns this store ({@link KitState}: its incarnation, the protocol's
   * slots), in the database {@value #KIT_DATABASE} of the same environment: written like the store's versions (the
   * background flush under {@code none}, the runtime's group fsync under {@code sync}), a crash keeps a prefix.
   */
  public KitState kitState() {
    synchronized (lifecycle) {
      checkOpen();
      if (kitState == null) {
        kitDb = env.openDatabase(null, KIT_DATABASE,
            new DatabaseConfig().setAllowCreate(true).setTransactional(false).setSortedDuplicates(false));
        kitState = new JeKitState(kitDb, this::checkOpen, this::written);
      }
      return kitState;
    }
  }

  /** The JE database of {@link #kitState()}. */
  static final String KIT_DATABASE = "kit";

  /** The directory of this store. */
  public Path dir() {
    return dir;
  }

  /** The durability the store was opened with (informational, see the constructor). */
  public Durability durability() {
    return durability;
  }

  @Override
  public String toString() {
    return "JeStore[" + dir + ", durability " + durability.name().toLowerCase() + "]";
  }

  // ---- key layout

  /** {@code [4-byte big-endian length][UTF-8 of key]}: the JE key prefix shared by all versions of key. */
  static byte[] prefixOf(String key) {
    byte[] utf8 = Stores.checkKey(key).getBytes(StandardCharsets.UTF_8);
    byte[] prefix = new byte[4 + utf8.length];
    int n = utf8.length;
    prefix[0] = (byte) (n >>> 24);
    prefix[1] = (byte) (n >>> 16);
    prefix[2] = (byte) (n >>> 8);
    prefix[3] = (byte) n;
    System.arraycopy(utf8, 0, prefix, 4, n);
    return prefix;
  }

  /** Length of the {@code [length][key]} prefix at the start of a JE key of this store. */
  private static int userPrefixLength(byte[] jeKey) {
    if (jeKey.length < 4) {
      throw new IllegalStateException("corrupt JE key of " + jeKey.length + " bytes");
    }
    int n = ((jeKey[0] & 0xff) << 24) | ((jeKey[1] & 0xff) << 16) | ((jeKey[2] & 0xff) << 8) | (jeKey[3] & 0xff);
    if (n < 0 || n > jeKey.length - 4) {
      throw new IllegalStateException("corrupt JE key: length field " + n + " in a key of " + jeKey.length + " bytes");
    }
    return 4 + n;
  }

  /**
   * The smallest byte string greater than every string starting with {@code prefix}: drop trailing 0xff
   * bytes and increment the last remaining byte. Never empty here: the prefix starts with a length
   * field below 0xffffffff.
   */
  static byte[] successor(byte[] prefix) {
    int i = prefix.length - 1;
    while (i >= 0 && prefix[i] == (byte) 0xff) {
      i--;
    }
    if (i < 0) {
      throw new IllegalArgumentException("prefix of only 0xff bytes has no successor");
    }
    byte[] out = Arrays.copyOf(prefix, i + 1);
    out[i]++;
    return out;
  }

  /**
   * Positions {@code c} on the largest JE key starting with {@code prefix} (the newest version), or
   * somewhere outside the prefix if the key has no versions: find the first JE key at or after the
   * prefix's successor and step back one; if there is none, the key's versions (if any) end the
   * database, so go to the last record.
   */
  private static OperationStatus seekNewest(Cursor c, byte[] prefix, DatabaseEntry k, DatabaseEntry v) {
    k.setData(successor(prefix));
    OperationStatus s = c.getSearchKeyRange(k, v, null);
    return s == OperationStatus.SUCCESS ? c.getPrev(k, v, null) : c.getLast(k, v, null);
  }

  /** Whether the cursor move succeeded and landed on a version of the key with this prefix. */
  private static boolean inKey(OperationStatus s, DatabaseEntry k, byte[] prefix) {
    if (s != OperationStatus.SUCCESS || k.getSize() < prefix.length) {
      return false;
    }
    byte[] data = k.getData();
    int off = k.getOffset();
    return Arrays.equals(data, off, off + prefix.length, prefix, 0, prefix.length);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** Whether the JE key in {@code k} sorts before {@code bound} (unsigned bytes, as JE orders them). */
  private static boolean below(DatabaseEntry k, byte[] bound) {
    return Arrays.compareUnsigned(k.getData(), k.getOffset(), k.getOffset() + k.getSize(), bound, 0, bound.length) < 0;
  }

  /** The entry's bytes (its own array when the entry covers all of it, as JE's reads do). */
  static byte[] bytesOf(DatabaseEntry e) {
    byte[] data = e.getData();
    if (data == null) {
      return new byte[0];
    }
    return e.getOffset() == 0 && e.getSize() == data.length
        ? data
        : Arrays.copyOfRange(data, e.getOffset(), e.getOffset() + e.getSize());
  }

  private R parse(String key, byte[] bytes) {
    try {
      return type.parser().parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored version of key " + Stores.show(key) + " in " + dir
          + " is not a valid " + type.type().getSimpleName(), e);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store " + dir + " is closed");
    }
  }
}
