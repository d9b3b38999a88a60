package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.kvlab.api.Params;
import org.kvlab.api.Session;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.config.ClusterConfig;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;
import org.kvlab.workload.store.StoreProcedures;

/**
 * The Conveyor Belt on a real loopback cluster of 3 datacenters x 1 server, 30 ms emulated WAN, 5 ms of service per
 * operation: a cart with a server-specific id of datacenter 0 is filled and ordered from datacenter 0 (local, then
 * global under the token), and datacenters 1 and 2 read the order's stock and record (their GETs are global at their
 * server, so they run after the token brought the order's update).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConveyorBeltClusterTest {
  private static final ClusterConfig.EmulationSpec WAN = new ClusterConfig.EmulationSpec(
      new long[][] {{0, 30, 30}, {30, 0, 30}, {30, 30, 0}}, Map.of());

  @Test
  void when_aCartIsOrderedInOneDatacenter_then_theOthersReadTheStockItTook() throws Exception {
    ClusterConfig c = TestClusters.loopback("conveyorbelt", 3, 1, TestClusters.memory()).withEmulation(WAN);
    ClusterConfig config = new ClusterConfig(c.source(), c.name(), c.protocol(),
        new Params(Map.of("serviceMicros", "5000")), c.topology(), c.servers(), c.storage(), c.emulation(), c.limits(),
        c.security());
    try (LocalCluster cluster = LocalCluster.start(config, new ConveyorBelt());
         ClientRuntime clients = new ClientRuntime(config, new ConveyorBelt(), 3)) {
      assertTrue(cluster.awaitConnected(Duration.ofSeconds(30)), "servers did not connect");
      try (Session dc0 = clients.openSession(0); Session dc1 = clients.openSession(1);
           Session dc2 = clients.openSession(2)) {
        String cart = "0@a";
        dc0.transact(TxnRequest.procedure(StoreProcedures.CREATE, List.of("cart:" + cart), cart));
        TxnResult add = dc0.transact(TxnRequest.procedure(StoreProcedures.ADD, List.of("cart:" + cart, "stock:3"),
            cart, "3", "4"));
        assertEquals(ByteString.copyFromUtf8("3=4"), add.writes().get("cart:" + cart));
        TxnResult order = dc0.transact(TxnRequest.procedure(StoreProcedures.ORDER, List.of("cart:" + cart,
            "order:" + cart + ":1", "stock:3"), cart, "1"));
        assertEquals(ByteString.copyFromUtf8("16"), order.writes().get("stock:3"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("16")), dc1.get("stock:3"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("3=4")), dc2.get("order:" + cart + ":1"));
        dc2.put("k", ByteString.copyFromUtf8("v"));
        assertEquals(Optional.of(ByteString.copyFromUtf8("v")), dc1.get("k"));
      }
    }
  }
}
