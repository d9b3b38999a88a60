package org.kvlab.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Listening ports for the servers of a local cluster (tests, {@code kvlab bench}): free on 127.0.0.1 when
 * checked, and below the kernel's ephemeral port range. A port is only checked, not held, until its server
 * binds it; an ephemeral port could meanwhile be taken by an outgoing connection (the cluster's own servers
 * connect to each other while the later ones start), which made a server fail with "Address already in
 * use". Ports below the ephemeral range are never handed out to outgoing connections.
 */
public final class LoopbackPorts {
  private static final int LOWEST = 10_000;

  private LoopbackPorts() {}

  /** A base port such that {@code base .. base + count - 1} are all free on 127.0.0.1 right now. */
  public static int freeBlock(int count) {
    int below = ephemeralLow();
    int highest = Math.max(LOWEST + count, below - count);
    for (int attempt = 0; attempt < 500; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(LOWEST, highest);
      if (allFree(base, count)) {
        return base;
      }
    }
    throw new IllegalStateException("no " + count + " consecutive free loopback ports between " + LOWEST + " and "
        + below + ". Fix: stop local clusters that are left running (./kvlab local down <cluster file>)");
  }

  private static boolean allFree(int base, int count) {
    for (int i = 0; i < count; i++) {
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), base + i));
      } catch (IOException taken) {
        return false;
      }
    }
    return true;
  }

  /** The lowest ephemeral port (Linux: /proc/sys/net/ipv4/ip_local_port_range; 32768 where unknown). */
  static int ephemeralLow() {
    try {
      // readAllLines, not readString: procfs reports size 0, and readString then returns a prefix ("3").
      String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException unknown) {
      return 32_768;
    }
  }
}
