package org.kvlab.runtime;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Listening ports for the servers of a local cluster (tests, {@code kvlab bench}, the demo): reserved for this JVM,
 * free on 127.0.0.1 when checked, and below the kernel's ephemeral port range.
 *
 * <p>Two hazards lie between choosing a port and a server binding it. (1) An ephemeral port can be taken by an
 * outgoing connection (the cluster's own servers connect to each other while the later ones start): ports below the
 * ephemeral range are never handed out to outgoing connections. (2) Another JVM on the machine (a second checkout's
 * tests, a second {@code kvlab bench}) can choose the same port in the same moment: ports are handed out in aligned
 * slots of {@value #SLOT}, and a slot is reserved by an exclusive lock ({@link FileChannel#tryLock()}) on its lock
 * file in {@code <java.io.tmpdir>/kvlab-loopback-ports/}, held until the JVM exits (the operating system releases it
 * then, even after a SIGKILL). A JVM never hands out a slot twice either, so a test never gets the port of a server
 * an earlier test stopped a moment ago; only once it holds half of all slots does it release its oldest.
 *
 * <p>Lock files are left in place (deleting one would let two JVMs lock two different files of one name); there is
 * at most one per slot below the ephemeral range, empty. Where the lock directory cannot be written, ports are only
 * checked, as if no other JVM used this class.
 */
public final class LoopbackPorts {
  private static final int LOWEST = 10_000;
  /** Ports per lock: a block of n ports takes ceil(n / SLOT) consecutive aligned slots. */
  static final int SLOT = 8;
  static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "kvlab-loopback-ports");
  /** The slots (port / SLOT) this JVM holds, oldest first. */
  private static final Map<Integer, Held> HELD = new LinkedHashMap<>();
  private static boolean locksUnusable;

  private LoopbackPorts() {}

  /**
   * A base port such that {@code base .. base + count - 1} are reserved for this JVM (no other JVM that uses this
   * class gets them while it lives) and free on 127.0.0.1 right now.
   */
  public static int freeBlock(int count) {
    return freeBlock(count, LOWEST, ephemeralLow());
  }

  /** {@link #freeBlock(int)} among the ports from {@code lowest} to below {@code below} (tests narrow the range). */
  static synchronized int freeBlock(int count, int lowest, int below) {
    if (count < 1) {
      throw new IllegalArgumentException("a block of " + count + " ports: ask for 1 or more");
    }
    int slots = (count + SLOT - 1) / SLOT;
    int firstSlot = (lowest + SLOT - 1) / SLOT;
    int lastStart = below / SLOT - slots; // the block's last slot ends below `below`
    if (lastStart < firstSlot) {
      throw new IllegalStateException("no room for " + count + " ports between " + lowest + " and " + below);
    }
    int range = lastStart - firstSlot + 1;
    int all = Math.max(4, (ephemeralLow() - LOWEST) / SLOT);
    if (HELD.size() >= all / 2) {
      releaseOldest(HELD.size() - all / 4);
    }
    for (int attempt = 0; attempt < 500; attempt++) {
      int slot = firstSlot + ThreadLocalRandom.current().nextInt(range);
      int base = slot * SLOT;
      if (reserveSlots(slot, slots)) {
        if (allFree(base, count)) {
          return base;
        }
        release(slot, slots); // in use by something that does not reserve (a JVM without this class, another tool)
      }
    }
    throw new IllegalStateException("no " + count + " consecutive free loopback ports between " + lowest + " and "
        + below + ". Fix: stop local clusters that are left running (./kvlab local down <cluster file>)");
  }

  /**
   * Reserves the slots of the given addresses' ports for this JVM and checks that each is free; true if both hold,
   * else nothing stays reserved. For servers whose ports a file fixes (the demo's tour moves its cluster to other
   * ports when these are taken).
   */
  public static synchronized boolean reserve(Collection<InetSocketAddress> addresses) {
    TreeSet<Integer> slots = new TreeSet<>();
    addresses.forEach(a -> slots.add(a.getPort() / SLOT));
    List<Integer> taken = new ArrayList<>();
    boolean ok = true;
    for (int slot : slots) {
      if (!reserveSlots(slot, 1)) {
        ok = false;
        break;
      }
      taken.add(slot);
    }
    ok = ok && addresses.stream().allMatch(LoopbackPorts::free);
    if (!ok) {
      taken.forEach(s -> release(s, 1));
    }
    return ok;
  }

  /** Locks {@code count} slots from {@code first}, all or none; false if this or another JVM holds one of them. */
  private static boolean reserveSlots(int first, int count) {
    for (int s = first; s < first + count; s++) {
      if (HELD.containsKey(s)) {
        return false;
      }
    }
    for (int s = first; s < first + count; s++) {
      Held lock = lock(s);
      if (lock == null) {
        release(first, s - first);
        return false;
      }
      HELD.put(s, lock);
    }
    return true;
  }

  /** Slot {@code slot} locked for this JVM, or null if another JVM holds it. */
  private static Held lock(int slot) {
    if (locksUnusable) {
      return new Held(null);
    }
    FileChannel channel = null;
    try {
      Files.createDirectories(LOCKS);
      channel = FileChannel.open(LOCKS.resolve((slot * SLOT) + ".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      if (channel.tryLock() == null) {
        channel.close();
        return null;
      }
      return new Held(channel);
    } catch (OverlappingFileLockException sameJvm) { // another class loader of this JVM holds it
      closeQuietly(channel);
      return null;
    } catch (IOException | UnsupportedOperationException unusable) {
      closeQuietly(channel);
      locksUnusable = true;
      return new Held(null);
    }
  }

  private static void release(int first, int count) {
    for (int s = first; s < first + count; s++) {
      Held lock = HELD.remove(s);
      if (lock != null) {
        closeQuietly(lock.channel());
      }
    }
  }

  private static void releaseOldest(int count) {
    Iterator<Held> it = HELD.values().iterator();
    for (int i = 0; i < count && it.hasNext(); i++) {
      closeQuietly(it.next().channel());
      it.remove();
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close(); // releases the lock
      } catch (IOException ignored) {
        // the lock goes with the JVM at the latest
      }
    }
  }

  private static boolean allFree(int base, int count) {
    for (int i = 0; i < count; i++) {
      if (!free(new InetSocketAddress(InetAddress.getLoopbackAddress(), base + i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean free(InetSocketAddress address) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(address);
      return true;
    } catch (IOException taken) {
      return false;
    }
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

  /**
   * A slot this JVM holds: {@code channel} holds its lock until closed; null where the lock directory cannot be used
   * (an unwritable temporary directory), and the ports are only checked.
   */
  private record Held(FileChannel channel) {}
}
