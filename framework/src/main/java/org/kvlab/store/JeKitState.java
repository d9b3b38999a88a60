package org.kvlab.store;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@link KitState} of a {@link JeStore}: a database of its own in the store's environment (JE key = the name in
 * UTF-8, value = the bytes), written like the store's versions, so a crash keeps a prefix of the writes. UTF-8 byte
 * order is code-point order, so a prefix scan is one cursor range.
 */
final class JeKitState implements KitState {
  private final Database db;
  private final Runnable checkOpen;
  private final Runnable written;

  /**
   * @param checkOpen throws if the store was closed
   * @param written tells the store a write happened (arms its background flush)
   */
  JeKitState(Database db, Runnable checkOpen, Runnable written) {
    this.db = db;
    this.checkOpen = checkOpen;
    this.written = written;
  }

  @Override
  public byte[] get(String name) {
    checkOpen.run();
    DatabaseEntry v = new DatabaseEntry();
    return db.get(null, key(name), v, LockMode.DEFAULT) == OperationStatus.SUCCESS ? JeStore.bytesOf(v) : null;
  }

  @Override
  public void put(String name, byte[] value) {
    checkOpen.run();
    db.put(null, key(name), new DatabaseEntry(value));
    written.run();
  }

  @Override
  public void remove(String name) {
    checkOpen.run();
    if (db.delete(null, key(name)) == OperationStatus.SUCCESS) {
      written.run();
    }
  }

  @Override
  public SortedMap<String, byte[]> scan(String prefix) {
    checkOpen.run();
    byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
    TreeMap<String, byte[]> out = new TreeMap<>();
    DatabaseEntry k = new DatabaseEntry(p);
    DatabaseEntry v = new DatabaseEntry();
    try (Cursor c = db.openCursor(null, null)) {
      for (OperationStatus s = c.getSearchKeyRange(k, v, null); s == OperationStatus.SUCCESS; s = c.getNext(k, v, null)) {
        byte[] name = JeStore.bytesOf(k);
        if (!startsWith(name, p)) {
          break;
        }
        out.put(new String(name, StandardCharsets.UTF_8), JeStore.bytesOf(v));
      }
    }
    return out;
  }

  private static DatabaseEntry key(String name) {
    return new DatabaseEntry(name.getBytes(StandardCharsets.UTF_8));
  }

  private static boolean startsWith(byte[] a, byte[] prefix) {
    return a.length >= prefix.length && Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
  }
}
