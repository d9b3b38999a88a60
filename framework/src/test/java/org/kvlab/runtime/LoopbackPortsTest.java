package org.kvlab.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Ports for local servers are free and below the ephemeral range, where outgoing connections cannot take them. */
class LoopbackPortsTest {
  @Test
  void when_aBlockIsChosen_then_itIsBelowTheEphemeralRangeAndBindable() throws Exception {
    int low = LoopbackPorts.ephemeralLow();
    for (int round = 0; round < 20; round++) {
      int base = LoopbackPorts.freeBlock(6);
      assertTrue(base >= 10_000 && base + 6 <= low, "block " + base + ".." + (base + 5) + ", ephemeral from " + low);
      for (int p = base; p < base + 6; p++) {
        try (ServerSocket s = new ServerSocket()) {
          s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
        }
      }
    }
  }
}
