package org.kvlab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.micro.Micro;
import org.kvlab.workload.tpcc.Tpcc;
import site.ycsb.WorkloadException;

/** Goal: {@code kvlab.txnworkload=chirper|tpcc|micro} builds the family from its properties, and refuses bad ones. */
class FamilyPropertiesTest {
  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  @Test
  void when_aFamilyIsNamed_then_itsPropertiesSetIt() throws Exception {
    Chirper c = (Chirper) FamilyProperties.family(props(KvlabWorkload.TXN_WORKLOAD, "chirper", "kvlab.users", "300",
        "kvlab.celebrityat", "200", "kvlab.postshare", "0.2"));
    assertEquals(300, c.graph().users());
    assertEquals(200_000_000L, c.celebrityAtMicros());
    assertEquals(0.2, c.postShare());
    assertEquals(299, c.celebrity());
    assertEquals(1, c.graph().communities());
    Chirper communal = (Chirper) FamilyProperties.family(props(KvlabWorkload.TXN_WORKLOAD, "chirper", "kvlab.users",
        "300", "kvlab.communities", "8"));
    assertEquals("300/5/1/8/0.05", communal.graph().toString());
    Tpcc t = (Tpcc) FamilyProperties.family(props(KvlabWorkload.TXN_WORKLOAD, "tpcc", "kvlab.warehouses", "4"));
    assertEquals(Tpcc.of(4), t);
    assertEquals(new Micro(0.7, 20), FamilyProperties.family(props(KvlabWorkload.TXN_WORKLOAD, "micro",
        "kvlab.localshare", "0.7")));
    assertNull(FamilyProperties.family(props(KvlabWorkload.TXN_WORKLOAD, "list-append")));
  }

  @Test
  void when_aPropertyIsWrong_then_theWorkloadIsRefusedWithTheFix() {
    WorkloadException words = assertThrows(WorkloadException.class, () -> FamilyProperties.family(props(
        KvlabWorkload.TXN_WORKLOAD, "tpcc", "kvlab.warehouses", "many")));
    assertTrue(words.getMessage().contains("not a number") && words.getMessage().contains("Fix:"), words.getMessage());
    WorkloadException users = assertThrows(WorkloadException.class, () -> FamilyProperties.family(props(
        KvlabWorkload.TXN_WORKLOAD, "chirper", "kvlab.users", "1")));
    assertTrue(users.getMessage().contains("2 to 10,000,000 users") && users.getMessage().contains("Fix:"),
        users.getMessage());
    WorkloadException share = assertThrows(WorkloadException.class, () -> FamilyProperties.family(props(
        KvlabWorkload.TXN_WORKLOAD, "micro", "kvlab.localshare", "1.5")));
    assertTrue(share.getMessage().contains("local share from 0 to 1") && share.getMessage().contains("Fix:"),
        share.getMessage());
  }
}
