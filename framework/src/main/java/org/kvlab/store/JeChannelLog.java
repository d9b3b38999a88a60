package org.kvlab.store;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Environment;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The {@link ChannelLog} of a {@link JeStore}: two more databases in the store's JE environment, so
 * the store's group fsync ({@code Environment.flushLog(true)}) covers them, and they share the store's
 * non-transactional, prefix-of-the-writes crash semantics.
 *
 * <p><b>{@value #OUTBOX}</b>: JE key = {@code [4-byte big-endian length n][n bytes of the peer id in
 * UTF-8][8-byte big-endian sequence number]}, value = the serialized {@code Data} frame (sequence
 * number, message type, body). The messages of one channel are adjacent and in sequence order.
 *
 * <p><b>{@value #META}</b>: JE key = UTF-8 string, value = big-endian longs:
 * <ul>
 *   <li>{@code incarnation} → the node's incarnation (8 bytes);
 *   <li>{@code acked/<peer>} → the last sequence number the peer acknowledged (8 bytes);
 *   <li>{@code delivered/<sender>} → the sender's incarnation and the last sequence number delivered
 *       from it (16 bytes).
 * </ul>
 */
final class JeChannelLog implements ChannelLog {
  static final String OUTBOX = "outbox";
  static final String META = "channel-meta";
  private static final String INCARNATION = "incarnation";
  private static final String ACKED = "acked/";
  private static final String DELIVERED = "delivered/";

  private final Environment env;
  private final Database outbox;
  private final Database meta;
  private final Runnable checkOpen;

  JeChannelLog(Environment env, Runnable checkOpen) {
    this.env = env;
    this.checkOpen = checkOpen;
    this.outbox = env.openDatabase(null, OUTBOX, config().setKeyPrefixing(true));
    try {
      this.meta = env.openDatabase(null, META, config());
    } catch (RuntimeException e) {
      outbox.close();
      throw e;
    }
  }

  private static DatabaseConfig config() {
    return new DatabaseConfig().setAllowCreate(true).setTransactional(false).setSortedDuplicates(false);
  }

  @Override
  public long incarnation(LongSupplier fresh) {
    checkOpen.run();
    DatabaseEntry k = metaKey(INCARNATION);
    DatabaseEntry v = new DatabaseEntry();
    if (meta.get(null, k, v, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
      return longAt(v, 0);
    }
    long incarnation = fresh.getAsLong();
    meta.put(null, k, longs(incarnation));
    env.flushLog(true);
    return incarnation;
  }

  @Override
  public void append(String peer, long seq, byte[] message) {
    checkOpen.run();
    if (outbox.putNoOverwrite(null, outboxKey(peer, seq), new DatabaseEntry(message)) != OperationStatus.SUCCESS) {
      throw new IllegalStateException("outbox of channel to " + Stores.show(peer) + " already holds message " + seq
          + ": a sequence number was reused");
    }
  }

  @Override
  public void acknowledged(String peer, long seq) {
    checkOpen.run();
    meta.put(null, metaKey(ACKED + peer), longs(seq));
    byte[] prefix = JeStore.prefixOf(peer);
    DatabaseEntry k = outboxKey(peer, 0);
    DatabaseEntry noData = new DatabaseEntry();
    noData.setPartial(0, 0, true);
    try (Cursor c = outbox.openCursor(null, null)) {
      for (OperationStatus s = c.getSearchKeyRange(k, noData, null);
          inChannel(s, k, prefix) && seqOf(k) <= seq; s = c.getNext(k, noData, null)) {
        if (c.delete() != OperationStatus.SUCCESS) {
          throw new IllegalStateException("JE could not delete message " + seqOf(k) + " from the outbox of "
              + Stores.show(peer));
        }
      }
    }
  }

  @Override
  public List<Entry> pending(String peer) {
    checkOpen.run();
    byte[] prefix = JeStore.prefixOf(peer);
    List<Entry> out = new ArrayList<>();
    DatabaseEntry k = outboxKey(peer, 0);
    DatabaseEntry v = new DatabaseEntry();
    try (Cursor c = outbox.openCursor(null, null)) {
      for (OperationStatus s = c.getSearchKeyRange(k, v, null); inChannel(s, k, prefix); s = c.getNext(k, v, null)) {
        out.add(new Entry(seqOf(k), Arrays.copyOfRange(v.getData(), v.getOffset(), v.getOffset() + v.getSize())));
      }
    }
    return out;
  }

  @Override
  public long highWater(String peer) {
    checkOpen.run();
    long high = 0;
    DatabaseEntry v = new DatabaseEntry();
    if (meta.get(null, metaKey(ACKED + peer), v, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
      high = longAt(v, 0);
    }
    byte[] prefix = JeStore.prefixOf(peer);
    DatabaseEntry k = new DatabaseEntry(JeStore.successor(prefix));
    DatabaseEntry noData = new DatabaseEntry();
    noData.setPartial(0, 0, true);
    try (Cursor c = outbox.openCursor(null, null)) {
      OperationStatus s = c.getSearchKeyRange(k, noData, null);
      s = s == OperationStatus.SUCCESS ? c.getPrev(k, noData, null) : c.getLast(k, noData, null);
      if (inChannel(s, k, prefix)) {
        high = Math.max(high, seqOf(k));
      }
    }
    return high;
  }

  @Override
  public void delivered(String sender, long incarnation, long seq) {
    checkOpen.run();
    meta.put(null, metaKey(DELIVERED + sender), longs(incarnation, seq));
  }

  @Override
  public Map<String, Delivered> deliveredMarkers() {
    checkOpen.run();
    Map<String, Delivered> out = new TreeMap<>();
    byte[] prefix = DELIVERED.getBytes(StandardCharsets.UTF_8);
    DatabaseEntry k = new DatabaseEntry(prefix);
    DatabaseEntry v = new DatabaseEntry();
    try (Cursor c = meta.openCursor(null, null)) {
      for (OperationStatus s = c.getSearchKeyRange(k, v, null); inChannel(s, k, prefix); s = c.getNext(k, v, null)) {
        String sender = new String(k.getData(), k.getOffset() + prefix.length, k.getSize() - prefix.length,
            StandardCharsets.UTF_8);
        if (v.getSize() != 16) {
          throw new IllegalStateException("corrupt delivered marker of " + Stores.show(sender) + ": " + v.getSize()
              + " bytes");
        }
        out.put(sender, new Delivered(longAt(v, 0), longAt(v, 8)));
      }
    }
    return out;
  }

  void close() {
    try {
      outbox.close();
    } finally {
      meta.close();
    }
  }

  // ---- encoding

  private static DatabaseEntry outboxKey(String peer, long seq) {
    byte[] prefix = JeStore.prefixOf(peer);
    return new DatabaseEntry(ByteBuffer.allocate(prefix.length + 8).put(prefix).putLong(seq).array());
  }

  private static DatabaseEntry metaKey(String key) {
    return new DatabaseEntry(key.getBytes(StandardCharsets.UTF_8));
  }

  private static DatabaseEntry longs(long... values) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length);
    for (long v : values) {
      b.putLong(v);
    }
    return new DatabaseEntry(b.array());
  }

  private static long longAt(DatabaseEntry e, int at) {
    if (e.getSize() < at + 8) {
      throw new IllegalStateException("corrupt channel log value of " + e.getSize() + " bytes");
    }
    return ByteBuffer.wrap(e.getData(), e.getOffset(), e.getSize()).getLong(e.getOffset() + at);
  }

  /** The sequence number at the end of an outbox key. */
  private static long seqOf(DatabaseEntry k) {
    return ByteBuffer.wrap(k.getData(), k.getOffset(), k.getSize()).getLong(k.getOffset() + k.getSize() - 8);
  }

  /** Whether the cursor move succeeded and landed on a key starting with {@code prefix}. */
  private static boolean inChannel(OperationStatus s, DatabaseEntry k, byte[] prefix) {
    if (s != OperationStatus.SUCCESS || k.getSize() < prefix.length) {
      return false;
    }
    int off = k.getOffset();
    return Arrays.equals(k.getData(), off, off + prefix.length, prefix, 0, prefix.length);
  }
}
