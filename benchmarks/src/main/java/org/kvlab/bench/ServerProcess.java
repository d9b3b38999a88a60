package org.kvlab.bench;

import java.io.IOException;

/** Helpers for the server mains: they run until their standard input closes (the harness went away). */
final class ServerProcess {
  private ServerProcess() {}

  /** Prints the ready line the harness waits for, then blocks until stdin reaches end of file. */
  static void readyThenAwaitStdinClose(String what) {
    System.out.println("READY " + what);
    System.out.flush();
    try {
      while (System.in.read() >= 0) {
        // ignore input; EOF means stop
      }
    } catch (IOException e) {
      // stdin broken: stop as well
    }
  }
}
