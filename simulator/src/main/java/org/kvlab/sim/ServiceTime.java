package org.kvlab.sim;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated servers' CPU cost of handling what they receive (a per-command service time). With a model set
 * ({@link #enabled()}), a server is busy for {@code micros} (or its type's override) for every peer message, kit
 * frame (a call or forward) and client request it handles, one at a time: what arrives while it is busy waits in
 * arrival order (FIFO), the handler runs when its service time has passed (so its replies and sends leave then), and a
 * saturated server handles {@code 1 / micros} inputs per second. A handler may charge more
 * ({@code ServerContext.chargeMicros}: a command that moves many variables costs more); the sends it makes after the
 * charge leave when the charge is spent, and the next input waits for it. An offloaded computation
 * ({@code ServerContext.offload}) takes {@code offloadMicros} beside the loop (a worker, not the server's CPU).
 *
 * <p>{@link #NONE} (the default) is the simulator without the model, exactly as before it existed: handlers cost
 * nothing, charges are ignored, offloaded results come back at once (as a later event). The model shares each
 * server's one timeline with the network model's message costs ({@link NetworkModel#withReceiveMicros} and the
 * others). Timers cost nothing. Not used under controlled scheduling ({@code kvlab explore}), which has no time.
 *
 * @param enabled whether the model applies at all
 * @param micros the service time of an input whose type has no override
 * @param perType overrides by the simple name of the message's class (a kit frame's: its body's, e.g. a call's
 *     request type)
 * @param offloadMicros how long an offloaded computation takes in virtual time
 * @param perKilobyteMicros added per 1,024 bytes of the input's protobuf encoding (a kit frame: its body's), pro rata:
 *     the cost of taking in (decoding, installing) what a message carries, e.g. the variables a partition lends
 */
public record ServiceTime(boolean enabled, long micros, Map<String, Long> perType, long offloadMicros,
    long perKilobyteMicros) {
  /** No model: today's zero-time handlers. */
  public static final ServiceTime NONE = new ServiceTime(false, 0, Map.of(), 0, 0);

  /** The name of the offloaded computation's duration in {@link #parse}'s list. */
  public static final String OFFLOAD = "offload";
  /** The name of the cost per 1,024 bytes in {@link #parse}'s list. */
  public static final String PER_KB = "perKB";

  public ServiceTime {
    if (micros < 0 || offloadMicros < 0 || perKilobyteMicros < 0) {
      throw new IllegalArgumentException("a service time must be >= 0 µs, got " + micros + " (offload "
          + offloadMicros + "). Fix: give 0 or more");
    }
    perType = Map.copyOf(new TreeMap<>(perType));
    for (Map.Entry<String, Long> e : perType.entrySet()) {
      if (e.getValue() < 0) {
        throw new IllegalArgumentException("service time of " + e.getKey() + " must be >= 0 µs, got " + e.getValue()
            + ". Fix: give 0 or more");
      }
    }
  }

  /** Every input costs {@code micros}; no overrides, offloaded work takes no time. */
  public static ServiceTime of(long micros) {
    return new ServiceTime(true, micros, Map.of(), 0, 0);
  }

  /** The same, with inputs of message type {@code simpleName} costing {@code micros}. */
  public ServiceTime withType(String simpleName, long typeMicros) {
    Map<String, Long> m = new TreeMap<>(perType);
    m.put(simpleName, typeMicros);
    return new ServiceTime(true, micros, m, offloadMicros, perKilobyteMicros);
  }

  /** The same, with each offloaded computation taking {@code micros} of virtual time. */
  public ServiceTime withOffload(long micros) {
    return new ServiceTime(true, this.micros, perType, micros, perKilobyteMicros);
  }

  /** The same, with every input costing {@code micros} more per 1,024 bytes it carries. */
  public ServiceTime withPerKilobyte(long micros) {
    return new ServiceTime(true, this.micros, perType, offloadMicros, micros);
  }

  /** The service time of {@code input} (a message, or null): its type's, plus its size's. */
  long of(com.google.protobuf.Message input) {
    long base = of(input == null ? null : input.getClass());
    return perKilobyteMicros == 0 || input == null ? base : base + input.getSerializedSize() * perKilobyteMicros / 1024;
  }

  /** The service time of an input of class {@code type} (null: the default). */
  long of(Class<?> type) {
    if (type == null || perType.isEmpty()) {
      return micros;
    }
    Long own = perType.get(type.getSimpleName());
    return own != null ? own : micros;
  }

  /**
   * {@code 50us} (every input), optionally followed by overrides {@code ,TypeName=200us}, the cost per 1,024 bytes
   * an input carries {@code ,perKB=100us} and the offloaded computations' duration {@code ,offload=20ms}; durations as {@code Params.parseDuration} reads them (us, ms, s).
   */
  public static ServiceTime parse(String text) {
    String[] parts = text.split(",");
    ServiceTime t = ServiceTime.of(micros(parts[0].trim(), "the service time"));
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim();
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + p + "' is no override. Fix: write TypeName=DURATION, e.g."
            + " PutRequest=200us, or offload=20ms");
      }
      String name = p.substring(0, eq).trim();
      long v = micros(p.substring(eq + 1).trim(), name);
      t = name.equals(OFFLOAD) ? t.withOffload(v) : name.equals(PER_KB) ? t.withPerKilobyte(v) : t.withType(name, v);
    }
    return t;
  }

  private static long micros(String text, String what) {
    Duration d = org.kvlab.api.Params.parseDuration(text, what);
    if (d.isNegative()) {
      throw new IllegalArgumentException(what + " must be >= 0, got " + text + ". Fix: give 0 or more, e.g. 50us");
    }
    return d.toNanos() / 1000;
  }
}
