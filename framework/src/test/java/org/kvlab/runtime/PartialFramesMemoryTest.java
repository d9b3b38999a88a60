package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.api.NodeId;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ClusterConfig.Limits;
import org.kvlab.testing.RawWire;
import org.kvlab.testing.TestClusters;
import org.kvlab.testing.Testkit;
import org.kvlab.testing.kit.KitGet;
import org.kvlab.testing.kit.KitGetReply;
import org.kvlab.testing.kit.KitPut;
import org.kvlab.testing.kit.KitPutReply;
import org.kvlab.wire.Frame;
import org.kvlab.wire.Hello;
import org.kvlab.wire.Request;
import org.kvlab.wire.Role;
import org.kvlab.wire.Status;

/**
 * Issue 28, item 1: client connections that each hold most of a maximal frame must not exhaust a server's direct memory
 * and shut legitimate clients out. A server in a child JVM (-Xmx256m, so 256 MiB of direct memory, as in the audit)
 * with the default limits (frameBytesMax 16 MiB, partialFrameBytesMax 64 MiB, no client token); 15 raw client
 * connections each declare a maximal frame and send all but 1 MiB of it, and one more fills the budget to within 1 MiB;
 * then a real client PUTs and GETs a maximal value. The PUT and the GET must succeed, the bytes held by partial frames
 * stay within the budget, the largest holders are closed (a counter, one log line each), and the server's direct
 * memory and RSS stay within bounds.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PartialFramesMemoryTest {
  private static final NodeId SERVER = new NodeId(0, 0);
  private static final int ATTACKERS = 15;
  private static final long CALL_SECONDS = 120;
  /** Bounds a wait for the child or the server's reading: generous, a loaded machine stretches them tenfold. */
  private static final Duration WAIT = Duration.ofSeconds(120);
  /** The child's heap (-Xmx) and so also its direct memory limit. */
  private static final long HEAP_BYTES = 256L << 20;

  @TempDir Path dir;
  private Process child;
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (child != null) {
      child.destroyForcibly();
    }
  }

  @Test
  void when_manyClientsHoldLargePartialFrames_then_aMaximalPutAndGetSucceedAndMemoryStaysWithinItsBudget()
      throws Exception {
    int base = TestClusters.freeBasePort(1);
    ClusterConfig config = NodeChild.memoryConfig(base);
    Limits limits = config.limits();
    int frameMax = limits.frameBytesMax();
    long budget = limits.partialFrameBytesMax();
    long frameHeld = frameMax + 4L; // what one connection receiving a maximal frame is charged
    long holders = budget / frameHeld; // the attackers that fit: the others are closed to make room
    startChild(base);
    long baselineKib = rssKib(child.pid())[0];

    for (int i = 0; i < ATTACKERS; i++) {
      holdPartialFrame(config, frameMax);
    }
    await(config, s -> s.getOperationsOrDefault("wire.partialFramesClosed", 0) == ATTACKERS - holders
        && s.getPartialFrameBytes() == holders * frameHeld, "the server never settled at " + holders + " holders");
    // One more, smaller, fills the budget to within 1 MiB (room for a peer's or tool's small frames, which may close a
    // client's): the PUT cannot fit without closing someone.
    long filler = budget - holders * frameHeld - (1 << 20);
    holdPartialFrame(config, (int) filler - 4);
    Status held = await(config, s -> s.getPartialFrameBytes() == budget - (1 << 20),
        "the filler never took the rest of the budget");
    assertEquals(ATTACKERS - holders, held.getOperationsOrDefault("wire.partialFramesClosed", 0), "the filler fits");
    long heldDirect = held.getDirectMemoryBytes();

    byte[] value = maximalValue(frameMax);
    try (ClientRuntime client = new ClientRuntime(config, new Testkit(), 1)) {
      KitPut put = KitPut.newBuilder().setKey("k").setValue(ByteString.copyFrom(value)).build();
      client.call(SERVER, put, KitPutReply.class).get(CALL_SECONDS, TimeUnit.SECONDS);
      KitGetReply got = client.call(SERVER, KitGet.newBuilder().setKey("k").build(), KitGetReply.class)
          .get(CALL_SECONDS, TimeUnit.SECONDS);
      assertTrue(got.getFound());
      assertArrayEquals(value, got.getValue().toByteArray(), "the maximal value must come back whole");
    }
    Status after = ControlClient.status(config, config.server(SERVER), WAIT);
    assertEquals(ATTACKERS - holders + 1, after.getOperationsOrDefault("wire.partialFramesClosed", 0),
        "the PUT needed room: exactly one more attacker (the oldest of the largest) must have been closed");
    assertEquals((holders - 1) * frameHeld + filler, after.getPartialFrameBytes(),
        "the largest, not the filler, made room, and the PUT's frame is released once complete");

    List<String> closes = Files.readAllLines(dir.resolve("server.log")).stream()
        .filter(l -> l.contains("a partly received frame")).toList();
    assertEquals(ATTACKERS - holders + 1, closes.size(), "one log line per close: " + closes);
    assertTrue(closes.get(0).contains("limits.partialFrameBytesMax = " + budget) && closes.get(0).contains("Fix: "),
        closes.get(0));
    System.out.println("PartialFramesMemoryTest: " + closes.get(0));

    long[] rss = rssKib(child.pid());
    String figures = "partial frames " + held.getPartialFrameBytes() + " bytes (budget " + budget + "), direct memory "
        + heldDirect + " bytes with the attack held, " + after.getDirectMemoryBytes() + " after the GET; RSS "
        + rss[0] + " KiB, peak " + rss[1] + " KiB (idle " + baselineKib + " KiB)";
    System.out.println("PartialFramesMemoryTest: " + figures);
    // Direct memory: the partial frames, plus at most one maximal frame in flight each way (the PUT being received
    // or the GET's reply being written) and Netty's pooled chunks (a few MiB).
    long directBound = budget + 2 * frameHeld + (16L << 20);
    assertTrue(heldDirect <= directBound && after.getDirectMemoryBytes() <= directBound, figures);
    // RSS: what the idle server had, plus the direct memory bound, plus 64 MiB of heap for the maximal value's copies
    // (the parsed request's, the store's) and garbage. Without the budget the audit saw 398 MB and an
    // OutOfMemoryError: the 15 attackers alone would hold 240 MiB of direct memory.
    long rssBound = baselineKib + ((directBound + (64L << 20)) >> 10);
    assertTrue(rss[1] <= rssBound, figures + "; bound " + rssBound + " KiB");
  }

  /** A client connection (no token needed) that declares a frame of {@code length} bytes, all but its last MiB sent. */
  private void holdPartialFrame(ClusterConfig config, int length) throws IOException {
    Socket s = RawWire.connect(config.server(SERVER));
    sockets.add(s);
    RawWire.write(s, Frame.newBuilder().setHello(Hello.newBuilder().setRole(Role.CLIENT).setCluster(config.name())
        .setProtocol("testkit").setFingerprint(Testkit.MESSAGES.fingerprint())).build());
    Frame welcome = RawWire.read(s);
    assertTrue(welcome.hasWelcome() && welcome.getWelcome().getError().isEmpty(), welcome.toString());
    byte[] chunk = new byte[1 << 20];
    try {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(length);
      for (int sent = 0; sent < length - chunk.length; sent += chunk.length) {
        out.write(chunk, 0, Math.min(chunk.length, length - chunk.length - sent));
      }
      out.flush();
    } catch (IOException closed) {
      // the server closed this connection to make room for a later one: what the test counts on the server's side
    }
  }

  /** A value whose PUT request frame is a maximal frame, to within the few bytes its request id may take. */
  private static byte[] maximalValue(int frameMax) {
    int size = frameMax;
    while (true) {
      KitPut put = KitPut.newBuilder().setKey("k").setValue(ByteString.copyFrom(new byte[size])).build();
      int frame = Frame.newBuilder().setRequest(Request.newBuilder().setId(Long.MAX_VALUE).setType(Integer.MAX_VALUE)
          .setBody(put.toByteString())).build().getSerializedSize();
      if (frame <= frameMax) {
        byte[] value = new byte[size];
        for (int i = 0; i < value.length; i++) {
          value[i] = (byte) (i * 31);
        }
        return value;
      }
      size -= frame - frameMax;
    }
  }

  private void startChild(int base) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = dir.resolve("server.log");
    child = new ProcessBuilder(java, "-Xmx" + (HEAP_BYTES >> 20) + "m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), NodeChild.class.getName(), String.valueOf(base), dir.toString(),
        SERVER.toString(), "memory")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    ClusterConfig config = NodeChild.memoryConfig(base);
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      if (!child.isAlive()) {
        fail("server exited with " + child.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        if (ControlClient.status(config, config.server(SERVER), WAIT).getPid() == child.pid()) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        fail("server did not start:\n" + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  /** Polls the server's status until {@code done}; each status must show partial frames within the budget. */
  private static Status await(ClusterConfig config, java.util.function.Predicate<Status> done, String what)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      Status s = ControlClient.status(config, config.server(SERVER), WAIT);
      assertTrue(s.getPartialFrameBytes() <= config.limits().partialFrameBytesMax(), s.toString());
      if (done.test(s)) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        fail(what + ": " + s.getPartialFrameBytes() + " bytes held, " + s.getOperationsMap());
      }
      Thread.sleep(100);
    }
  }

  /** The current and the peak resident set size of process {@code pid}, in KiB (/proc/PID/status: VmRSS, VmHWM). */
  private static long[] rssKib(long pid) throws IOException {
    long rss = -1;
    long peak = -1;
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("\\D", ""));
      } else if (line.startsWith("VmHWM:")) {
        peak = Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    return new long[] {rss, peak};
  }
}
