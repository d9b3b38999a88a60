package org.kvlab.store;

import java.nio.file.Path;
import org.kvlab.testing.TestRecord;

/**
 * Child process of {@link JeStoreTest}: opens a store with durability none, puts versions without ever
 * calling sync(), reports, and waits to be killed (SIGKILL by the test).
 *
 * <p>Args: directory, number of versions to put.
 */
public final class JeNoneCrashChild {
  static final String WRITTEN = "WRITTEN";

  public static void main(String[] args) throws InterruptedException {
    Path dir = Path.of(args[0]);
    int count = Integer.parseInt(args[1]);
    JeStore<TestRecord> store = new JeStore<>(VersionedStoreContract.TYPE, dir, Durability.NONE);
    for (int i = 0; i < count; i++) {
      store.put("key" + (i % 10), VersionedStoreContract.rec(i, 1, "acknowledged"));
    }
    System.out.println(WRITTEN);
    System.out.flush();
    Thread.sleep(600_000);
    store.close(); // not reached: the test kills this process
  }
}
