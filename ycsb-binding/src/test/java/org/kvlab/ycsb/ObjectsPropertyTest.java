package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.kvlab.workload.ReplicaObjects;

/** kvlab.objectsperreplica and kvlab.locality: the consensus workload's objects in the YCSB binding. */
class ObjectsPropertyTest {
  private static Properties props(String per, String locality) {
    Properties p = new Properties();
    if (per != null) {
      p.setProperty(KvlabDB.OBJECTS_PER_REPLICA, per);
    }
    if (locality != null) {
      p.setProperty(KvlabDB.LOCALITY, locality);
    }
    return p;
  }

  @Test
  void when_objectsAreSet_then_keysAreTheHomeDatacentersObjectsAtTheLocalityShare() throws Exception {
    assertNull(KvlabDB.objects(props(null, null), 3), "unset: YCSB's keys");
    ReplicaObjects o = KvlabDB.objects(props("50", "0.8"), 3);
    assertEquals(new ReplicaObjects(50, 0.8, true), o);
    Random r = new Random(5);
    int home = 0;
    for (int i = 0; i < 5000; i++) {
      String key = o.key(o.draw(r, 1, 3), 3);
      home += Math.floorMod(key.hashCode(), 3) == 1 ? 1 : 0; // hashed layout: the replica M2Paxos starts as owner
    }
    assertEquals(0.8, home / 5000.0, 0.03);
    assertEquals(1.0, KvlabDB.objects(props("10", null), 2).locality(), "locality defaults to 1");
  }

  @Test
  void when_theValuesAreWrong_then_initIsRefusedNamingTheFix() {
    for (Properties p : new Properties[] {props("-1", null), props("x", null), props("10", "1.5"), props(null, "0.5")}) {
      KvlabClients.SetupException e = assertThrows(KvlabClients.SetupException.class, () -> KvlabDB.objects(p, 3));
      assertTrue(e.getMessage().contains("Fix:"), e.getMessage());
    }
  }
}
