package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ports for local servers are free, below the ephemeral range (where outgoing connections cannot take them), and
 * reserved: another JVM (a second checkout's tests) never gets them, and this JVM never hands them out twice.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoopbackPortsTest {
  @Test
  void when_aBlockIsChosen_then_itIsBelowTheEphemeralRangeAndBindable() throws Exception {
    int low = LoopbackPorts.ephemeralLow();
    Set<Integer> seen = new HashSet<>();
    for (int round = 0; round < 20; round++) {
      int base = LoopbackPorts.freeBlock(6);
      assertTrue(base >= 10_000 && base + 6 <= low, "block " + base + ".." + (base + 5) + ", ephemeral from " + low);
      for (int p = base; p < base + 6; p++) {
        assertTrue(seen.add(p), "port " + p + " handed out twice in one JVM");
        try (ServerSocket s = new ServerSocket()) {
          s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
        }
      }
    }
  }

  @Test
  void when_anotherJvmHoldsPorts_then_thisOneGetsOnlyTheOthersAndTheyStayReservedWhileItLives() throws Exception {
    // A narrow range of 5 slots below 10,000, where no other user of the class picks blocks; random, so two
    // checkouts running this test at once rarely share it.
    int slot = LoopbackPorts.SLOT;
    int from = (5_000 / slot + ThreadLocalRandom.current().nextInt(500)) * slot;
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), LoopbackPortsChild.class.getName(), String.valueOf(from),
        String.valueOf(from + 4 * slot), String.valueOf(slot)).redirectErrorStream(true).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      List<Integer> childBlocks = new ArrayList<>();
      for (String line = out.readLine(); !"held".equals(line); line = out.readLine()) {
        assertTrue(line != null && line.matches("\\d+"), "child said: " + line);
        childBlocks.add(Integer.parseInt(line));
      }
      assertEquals(List.of(from, from + slot, from + 2 * slot, from + 3 * slot), childBlocks.stream().sorted().toList(),
          "the child took every slot of its range");

      // The fifth slot is the only one left to this JVM, however often it draws; then none is.
      assertEquals(from + 4 * slot, LoopbackPorts.freeBlock(3, from, from + 5 * slot));
      IllegalStateException none = assertThrows(IllegalStateException.class,
          () -> LoopbackPorts.freeBlock(1, from, from + 5 * slot));
      assertTrue(none.getMessage().startsWith("no 1 consecutive free loopback ports between " + from), none.getMessage());
      assertTrue(none.getMessage().contains("Fix:"), none.getMessage());
      // Fixed ports (the demo's) are reserved the same way: not those of the child's slots.
      assertFalse(LoopbackPorts.reserve(loopback(from + 1, from + 2)));

      child.getOutputStream().close(); // the child exits: the operating system releases its locks
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not exit");
      assertTrue(LoopbackPorts.reserve(loopback(from + 1, from + 2)), "a dead JVM's ports are free again");
      int next = LoopbackPorts.freeBlock(slot * 2, from, from + 5 * slot);
      assertTrue(next == from + slot || next == from + 2 * slot, "two slots free of this JVM's, from " + next);
    } finally {
      child.destroyForcibly();
    }
  }

  private static List<InetSocketAddress> loopback(int... ports) {
    return java.util.Arrays.stream(ports).mapToObj(p -> new InetSocketAddress("127.0.0.1", p)).toList();
  }
}
