package org.kvlab.runtime;

/**
 * Child process of {@link LoopbackPortsTest}: reserves blocks of ports from a range until none is left, prints each
 * block's base and then {@code held}, and holds them until the test closes its standard input.
 *
 * <p>Args: lowest port, the port the range ends below, ports per block.
 */
public final class LoopbackPortsChild {
  public static void main(String[] args) throws Exception {
    int from = Integer.parseInt(args[0]);
    int below = Integer.parseInt(args[1]);
    int count = Integer.parseInt(args[2]);
    while (true) {
      try {
        System.out.println(LoopbackPorts.freeBlock(count, from, below));
      } catch (IllegalStateException rangeFull) {
        break;
      }
    }
    System.out.println("held");
    System.out.flush();
    while (System.in.read() != -1) {
      // the parent keeps stdin open while the ports must stay reserved
    }
  }
}
