package org.kvlab.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.store.Durability;

/** The simulated kit state's crash semantics for the durable maps' puts, removes and prefix scans. */
class SimKitStateTest {
  @Test
  void underDurabilityNone_aCrashRestoresTheLastFlush_removalsIncluded() {
    SimKitState s = new SimKitState(Durability.NONE);
    s.put("map/m/a", new byte[] {1});
    s.put("map/m/b", new byte[] {2});
    s.flush();
    s.remove("map/m/a");
    s.put("map/m/c", new byte[] {3});
    assertEquals(List.of("map/m/b", "map/m/c"), List.copyOf(s.scan("map/m/").keySet()));
    s.crash();
    assertEquals(List.of("map/m/a", "map/m/b"), List.copyOf(s.scan("map/m/").keySet()));
    s.remove("map/m/a");
    s.flush();
    s.crash();
    assertEquals(List.of("map/m/b"), List.copyOf(s.scan("map/").keySet()));
  }

  @Test
  void underDurabilitySync_everyPutAndRemoveSurvivesACrash() {
    SimKitState s = new SimKitState(Durability.SYNC);
    s.put("map/m/a", new byte[] {1});
    s.put("map/m/b", new byte[] {2});
    s.remove("map/m/a");
    s.crash();
    assertEquals(List.of("map/m/b"), List.copyOf(s.scan("map/m/").keySet()));
    assertArrayEquals(new byte[] {2}, s.get("map/m/b"));
  }
}
