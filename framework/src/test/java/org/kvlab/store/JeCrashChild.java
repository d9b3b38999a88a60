package org.kvlab.store;

import java.nio.file.Path;
import org.kvlab.testing.TestRecord;

/**
 * Child process of {@link JeStoreTest}: puts versions, syncs, reports, puts more without syncing, then
 * dies like kill -9 ({@link Runtime#halt}: no shutdown hooks, no close).
 *
 * <p>Args: directory, number of versions to put and sync, number to put after the sync.
 */
public final class JeCrashChild {
  static final int EXIT_CODE = 77;
  static final String SYNCED = "SYNCED";

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    int synced = Integer.parseInt(args[1]);
    int unsynced = Integer.parseInt(args[2]);
    JeStore<TestRecord> store = new JeStore<>(VersionedStoreContract.TYPE, dir, Durability.SYNC);
    for (int i = 0; i < synced; i++) {
      store.put("key" + (i % 10), VersionedStoreContract.rec(i, 1, "synced"));
    }
    store.prune("key0", r -> r.getUt() <= 500);
    store.sync();
    System.out.println(SYNCED);
    System.out.flush();
    for (int i = 0; i < unsynced; i++) {
      store.put("after", VersionedStoreContract.rec(i, 1, "unsynced"));
    }
    Runtime.getRuntime().halt(EXIT_CODE);
  }
}
