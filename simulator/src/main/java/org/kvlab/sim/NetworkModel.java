package org.kvlab.sim;

import java.util.Random;

/**
 * Latency between datacenters: one-way base latency and uniform jitter per datacenter pair, in
 * microseconds. {@code base[a][a]} is the latency inside datacenter a (client to server, server to
 * server). {@code receiveMicros} (default 0) is the time a server spends taking in one message from another server:
 * a server takes in one message at a time, so a message that arrives while it is busy waits (it models the cost of
 * all-to-all exchanges, which grows with the number of servers). {@code sendMicros} (default 0) is the time a server
 * spends sending one message (to a server, or a reply to a client), and {@code requestMicros} (default 0) the time it
 * spends taking in one client request: the three costs share one timeline per server (its one CPU), so a message sent
 * while the server is busy leaves when it is free, and a server that sends or takes in more per operation than its
 * peers (a Multi-Paxos leader) is the first to saturate. Timers and the handlers themselves cost nothing.
 */
public record NetworkModel(long[][] baseMicros, long[][] jitterMicros, long receiveMicros, Sites sites, long sendMicros,
    long requestMicros) {

  /**
   * Sites inside a datacenter (optional): partition p of every datacenter sits at site {@code siteOf[p]}, and two
   * servers of one datacenter are {@code sites.base[a][b]} (+ jitter) apart instead of the datacenter's own latency.
   * For protocols whose partitions span places while a datacenter holds one copy of the data (CaMu's WAN runs: 45
   * partitions on 6 sites). Clients keep the datacenter's latency.
   */
  public record Sites(int[] siteOf, long[][] baseMicros, long[][] jitterMicros) {}

  public NetworkModel(long[][] baseMicros, long[][] jitterMicros) {
    this(baseMicros, jitterMicros, 0, null);
  }

  public NetworkModel(long[][] baseMicros, long[][] jitterMicros, long receiveMicros) {
    this(baseMicros, jitterMicros, receiveMicros, null);
  }

  public NetworkModel(long[][] baseMicros, long[][] jitterMicros, long receiveMicros, Sites sites) {
    this(baseMicros, jitterMicros, receiveMicros, sites, 0, 0);
  }

  /** The same latencies, with partitions placed on sites (see {@link Sites}). */
  public NetworkModel withSites(Sites s) {
    return new NetworkModel(baseMicros, jitterMicros, receiveMicros, s, sendMicros, requestMicros);
  }

  public NetworkModel {
    if (receiveMicros < 0 || sendMicros < 0 || requestMicros < 0) {
      throw new IllegalArgumentException("message costs must be >= 0 µs, got receive " + receiveMicros + ", send "
          + sendMicros + ", request " + requestMicros + ". Fix: give 0 or more");
    }
  }

  /** The same latencies, with each server-to-server message costing its receiver {@code micros}. */
  public NetworkModel withReceiveMicros(long micros) {
    return new NetworkModel(baseMicros, jitterMicros, micros, sites, sendMicros, requestMicros);
  }

  /** The same latencies, with each message a server sends (to a server or a client) costing it {@code micros}. */
  public NetworkModel withSendMicros(long micros) {
    return new NetworkModel(baseMicros, jitterMicros, receiveMicros, sites, micros, requestMicros);
  }

  /** The same latencies, with each client request costing the server that takes it in {@code micros}. */
  public NetworkModel withRequestMicros(long micros) {
    return new NetworkModel(baseMicros, jitterMicros, receiveMicros, sites, sendMicros, micros);
  }

  /** One cost for every message a server sends or takes in (server messages, client requests and replies). */
  public NetworkModel withMessageMicros(long micros) {
    return new NetworkModel(baseMicros, jitterMicros, micros, sites, micros, micros);
  }

  /** Whether a server spends time on messages at all (any cost above 0). */
  boolean costsCpu() {
    return receiveMicros > 0 || sendMicros > 0 || requestMicros > 0;
  }

  /** Every datacenter pair {@code wanRttMillis} apart; 0.2 ms ± 0.1 inside a datacenter; 10% jitter. */
  public static NetworkModel uniform(int datacenters, double wanRttMillis) {
    if (!(wanRttMillis >= 0 && wanRttMillis <= 3_600_000)) { // a negative delay would schedule events in the past
      throw new IllegalArgumentException("a round-trip time must be from 0 to 1 h, got " + wanRttMillis + " ms");
    }
    long[][] base = new long[datacenters][datacenters];
    long[][] jitter = new long[datacenters][datacenters];
    for (int a = 0; a < datacenters; a++) {
      for (int b = 0; b < datacenters; b++) {
        if (a == b) {
          base[a][b] = 200;
          jitter[a][b] = 100;
        } else {
          base[a][b] = Math.round(wanRttMillis * 1000 / 2);
          jitter[a][b] = base[a][b] / 10;
        }
      }
    }
    return new NetworkModel(base, jitter);
  }

  /** From a round-trip-time matrix in milliseconds (Table 5.1 style), with 10% jitter. */
  public static NetworkModel fromRttMillis(double[][] rttMillis) {
    int n = rttMillis.length;
    long[][] base = new long[n][n];
    long[][] jitter = new long[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        base[a][b] = a == b && rttMillis[a][b] == 0 ? 200 : Math.round(rttMillis[a][b] * 1000 / 2);
        jitter[a][b] = a == b && rttMillis[a][b] == 0 ? 100 : base[a][b] / 10;
      }
    }
    return new NetworkModel(base, jitter);
  }

  /** One-way latency of a server-to-server message: by site inside a datacenter if sites are set. */
  long sample(org.kvlab.api.NodeId from, org.kvlab.api.NodeId to, Random random) {
    if (sites == null || from.dc() != to.dc()) {
      return sample(from.dc(), to.dc(), random);
    }
    int a = sites.siteOf()[from.partition()];
    int b = sites.siteOf()[to.partition()];
    long j = sites.jitterMicros()[a][b];
    return sites.baseMicros()[a][b] + (j == 0 ? 0 : (long) (random.nextDouble() * j));
  }

  long sample(int fromDc, int toDc, Random random) {
    long j = jitterMicros[fromDc][toDc];
    return baseMicros[fromDc][toDc] + (j == 0 ? 0 : (long) (random.nextDouble() * j));
  }
}
