package org.kvlab.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.runtime.ClientRuntime;
import org.kvlab.runtime.LocalCluster;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.KitGet;
import org.kvlab.testing.kit.KitGetReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;

/**
 * Issue 28, item 3: every documented range of the cluster file works. For each whole-number key of the loader's own
 * table ({@link ConfigLoader#RANGES}, so a new key cannot escape) at its minimum and at its maximum: the file loads,
 * the value is what the configuration holds, and the cluster starts on loopback and serves a put and a get. Two kinds
 * of end are only loaded: a topology of more than {@value #SERVERS_STARTED_MAX} servers (1024 partitions are 1024
 * servers and a million peer connections) and a port that cannot be bound here (port 1 needs privileges; a port may
 * be in use).
 * docs/cluster-file.md must list the same ranges.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClusterRangesTest {
  private static final int SERVERS_STARTED_MAX = 16;
  private static final long CALL_SECONDS = 60;

  /** Where each key's value is in a loaded configuration (milliseconds for durations). */
  private static final Map<String, ToLongFunction<ClusterConfig>> VALUES = Map.ofEntries(
      Map.entry("datacenters", c -> c.topology().datacenters()),
      Map.entry("partitions", c -> c.topology().partitions()),
      Map.entry("replicas", c -> c.topology().replicas()),
      Map.entry("servers.port", c -> c.servers().get(0).port()),
      Map.entry("local.basePort", c -> c.servers().get(0).port()),
      Map.entry("emulation.rtt", c -> 2 * c.emulation().oneWayDelayMillis(0, 1)),
      Map.entry("emulation.skew", c -> c.emulation().skewMillisOf(new NodeId(0, 0))),
      Map.entry("limits.frameBytesMax", c -> c.limits().frameBytesMax()),
      Map.entry("limits.peerQueueMessagesMax", c -> c.limits().peerQueueMessagesMax()),
      Map.entry("limits.clientRequestsInFlightMax", c -> c.limits().clientRequestsInFlightMax()),
      Map.entry("limits.handshakeMillis", c -> c.limits().handshakeMillis()),
      Map.entry("limits.clientIdleSeconds", c -> c.limits().clientIdleSeconds()),
      Map.entry("limits.peerFlushMicros", c -> c.limits().peerFlushMicros()),
      Map.entry("limits.partialFrameBytesMax", c -> c.limits().partialFrameBytesMax()));

  @TempDir Path dir;

  @Test
  void when_eachNumericKeyIsAtItsMinimumOrMaximum_then_theClusterLoadsStartsAndServes() throws Exception {
    List<String> started = new ArrayList<>();
    for (Range r : ConfigLoader.RANGES) {
      ToLongFunction<ClusterConfig> value = VALUES.get(r.key());
      if (value == null) {
        fail(r.key() + " is in ConfigLoader.RANGES but not walked here: add where its value is to VALUES");
      }
      for (long end : new long[] {r.min(), r.max()}) {
        String yaml = cluster(r.key(), end);
        ClusterConfig config;
        try {
          config = ClusterConfig.parse(yaml, r.key() + "=" + end);
        } catch (ConfigException e) {
          throw new AssertionError(r + " is documented, yet " + end + " is refused: " + e.getMessage() + "\n" + yaml,
              e);
        }
        assertEquals(end, value.applyAsLong(config), r + " at " + end);
        if (config.servers().size() <= SERVERS_STARTED_MAX && bindable(config)) {
          putAndGet(config, r + " at " + end);
          started.add(r.key() + "=" + end);
        }
      }
    }
    // Everything but the large topologies and the ports that need privileges or are taken starts.
    assertTrue(started.size() >= 2 * ConfigLoader.RANGES.size() - 4, "started only " + started);
  }

  /**
   * The cluster file: two servers (so peers do their handshake; a cluster of one never does), a client token (so do
   * clients), memory storage, free ports, {@code key} at {@code value}.
   */
  private String cluster(String key, long value) {
    // basePort at 65535 leaves room for one server only ("every generated port at most 65535")
    int datacenters = key.equals("datacenters") ? (int) value : key.equals("local.basePort") ? 1 : 2;
    int partitions = key.equals("partitions") ? (int) value : 1;
    int replicas = key.equals("replicas") ? (int) value : 1;
    int servers = datacenters * partitions * replicas;
    int base = servers <= SERVERS_STARTED_MAX ? TestClusters.freeBasePort(servers) : 20_000;
    StringBuilder y = new StringBuilder("name: ranges-").append(base).append("\nprotocol: testkit\n")
        .append("datacenters: ").append(datacenters).append("\npartitions: ").append(partitions)
        .append("\nreplicas: ").append(replicas).append('\n');
    if (key.equals("servers.port")) {
      y.append("servers:\n  - { id: 0_0, host: 127.0.0.1, port: ").append(value).append(" }\n")
          .append("  - { id: 1_0, host: 127.0.0.1, port: ").append(base).append(" }\n");
    } else {
      long basePort = key.equals("local.basePort") ? value : base;
      y.append("local: { host: 127.0.0.1, basePort: ").append(basePort).append(" }\n");
    }
    y.append("storage: { engine: memory }\n");
    y.append("security: { secretFile: ").append(dir.resolve("secret"))
        .append(", clientToken: 0123456789abcdef0123 }\n");
    if (key.equals("emulation.rtt")) {
      y.append("emulation:\n  rtt: [[0, ").append(value).append("], [").append(value).append(", 0]]\n");
    } else if (key.equals("emulation.skew")) {
      y.append("emulation:\n  skew: { 0_0: ").append(value).append(" }\n");
    } else if (key.startsWith("limits.")) {
      y.append("limits:\n  ").append(key.substring("limits.".length())).append(": ").append(value).append('\n');
    }
    return y.toString();
  }

  /** Whether every server's port can be bound here now (port 1 needs privileges; a fixed port may be taken). */
  private static boolean bindable(ClusterConfig config) {
    for (ClusterConfig.ServerSpec s : config.servers()) {
      try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
        socket.setReuseAddress(true);
        socket.bind(new java.net.InetSocketAddress(s.host(), s.port()));
      } catch (java.io.IOException e) {
        return false;
      }
    }
    return true;
  }

  private static void putAndGet(ClusterConfig config, String what) throws Exception {
    NodeId server = config.servers().get(0).id();
    byte[] value = what.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (LocalCluster cluster = LocalCluster.start(config, new Testkit());
        ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      assertTrue(cluster.awaitConnected(java.time.Duration.ofSeconds(CALL_SECONDS)), "the servers never connected");
      client.call(server, KitPut.newBuilder().setKey("k").setValue(ByteString.copyFrom(value)).build(),
          KitPutReply.class).get(CALL_SECONDS, TimeUnit.SECONDS);
      KitGetReply got = client.call(server, KitGet.newBuilder().setKey("k").build(), KitGetReply.class)
          .get(CALL_SECONDS, TimeUnit.SECONDS);
      assertArrayEquals(value, got.getValue().toByteArray(), what);
    } catch (Exception | AssertionError e) {
      throw new AssertionError(what + ": the cluster did not start or serve: " + e, e);
    }
  }

  @Test
  void when_aLimitIsAKeyOfTheLimitsSection_then_itHasARangeInTheTable() {
    List<String> keys = ConfigLoader.RANGES.stream().map(Range::key).toList();
    for (String limit : ConfigLoader.LIMITS_KEYS) {
      assertTrue(keys.contains("limits." + limit), "limits." + limit + " has no range in ConfigLoader.RANGES: " + keys);
    }
  }

  @Test
  void when_theDocsListTheRanges_then_theyAreTheLoadersRanges() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "cluster-file.md"));
    for (Range r : ConfigLoader.RANGES) {
      String expected;
      if (r.key().startsWith("emulation.")) {
        expected = "at most 1 hour (either sign)";
        assertEquals(3_600_000, r.max(), r.key());
      } else {
        String name = r.key().substring(r.key().indexOf('.') + 1);
        expected = r.min() + " to " + r.max();
        String line = doc.lines().filter(l -> l.startsWith("| `" + name + "` |") || l.startsWith("- `" + name + "`:"))
            .findFirst().orElse(null);
        if (line != null) {
          assertTrue(line.contains(expected), r + ": docs/cluster-file.md says " + line);
          continue;
        }
      }
      assertTrue(doc.contains(expected), r + ": docs/cluster-file.md does not say '" + expected + "'");
    }
  }
}
