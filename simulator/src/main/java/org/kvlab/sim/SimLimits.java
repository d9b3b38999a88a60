package org.kvlab.sim;

import java.time.Duration;
import java.util.Locale;

/**
 * The valid range of each setting of a simulated run, checked before any seed runs: {@code kvlab sim} (and any
 * other front end) refuses a value outside it, naming the range, instead of running a seed that checks nothing (a
 * negative duration), that fails inside the simulator as if the protocol were wrong (a negative latency schedules
 * events in the past), or that reports false violations (a round trip longer than the quiet time before the final
 * reads). The ranges are wide enough for every run the project makes; docs/simulator.md lists them.
 */
public final class SimLimits {
  private SimLimits() {}

  /** Datacenters of the simulated cluster. */
  public static final Whole DATACENTERS = new Whole("datacenters", 1, 16);
  /** Partitions per datacenter (CaMu's WAN runs use 45). */
  public static final Whole PARTITIONS = new Whole("partitions", 1, 256);
  /** Servers per partition per datacenter: a replication group (a Raft group of NuKV, of replicated DynaStar). */
  public static final Whole REPLICAS = new Whole("replicas", 1, 9);
  /** Client sessions per datacenter. */
  public static final Whole SESSIONS = new Whole("sessions", 1, 1_000);
  /** Size of the key space. */
  public static final Whole KEYS = new Whole("keys", 1, 1_000_000);
  /** Keys per read-only transaction. */
  public static final Whole ROTX_KEYS = new Whole("rotx-keys", 1, 100);
  /** Fraction of plain operations that are gets. */
  public static final Fraction GET_RATIO = new Fraction("get-ratio");
  /** Fraction of operations that are read-only transactions. */
  public static final Fraction ROTX_RATIO = new Fraction("rotx-ratio");
  /** Simulated workload time per seed: at least 1 ms, at most 10 minutes (a seed of 10 s makes ~27,000 operations). */
  public static final Span DURATION = new Span("duration", Duration.ofMillis(1), Duration.ofMinutes(10));
  /**
   * Round-trip time between datacenters: 0 to 1 s. A one-way delay must stay well inside the 3 s of quiet before the
   * final reads ({@link SimSpec#defaults()}' settle time), or replication still in flight reads as divergence.
   */
  public static final Span RTT = new Span("rtt", Duration.ZERO, Duration.ofSeconds(1));
  /**
   * Bound of the clock skew drawn per node by the {@code skew} fault: 0 to 1 s. Protocols that wait for clocks to
   * pass a timestamp (GentleRain's global stable time) make remote writes visible up to a skew later, and past 1 s
   * (with a 1 s round trip) that outlasts the quiet time before the final reads: false convergence violations.
   */
  public static final Span MAX_SKEW = new Span("max-skew", Duration.ZERO, Duration.ofSeconds(1));

  /**
   * A setting outside its range, or of the wrong form.
   *
   * @see #setting()
   */
  public static final class SettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    SettingException(String setting, String problem, String fix) {
      super(setting + " " + problem + ". Fix: " + fix);
      this.setting = setting;
    }

    /** The setting as {@code kvlab sim} names its option without the dashes, e.g. {@code get-ratio}. */
    public String setting() {
      return setting;
    }
  }

  /** A whole number from {@code min} to {@code max}. */
  public record Whole(String setting, long min, long max) {
    /** {@code value}, if in range; else a {@link SettingException} naming the range. */
    public long check(long value) {
      if (value < min || value > max) {
        throw new SettingException(setting, value + ": out of range", "give a whole number from " + min + " to "
            + String.format(Locale.ROOT, "%,d", max));
      }
      return value;
    }

    /** "1 to 16", for option descriptions. */
    public String range() {
      return min + " to " + String.format(Locale.ROOT, "%,d", max);
    }
  }

  /** A fraction from 0 to 1. */
  public record Fraction(String setting) {
    /** {@code value}, if from 0 to 1 (not NaN); else a {@link SettingException}. */
    public double check(double value) {
      if (!(value >= 0 && value <= 1)) {
        String shown = Double.isFinite(value) ? java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString()
            : String.valueOf(value); // as written: -1, 1.5, NaN
        throw new SettingException(setting, shown + ": out of range", "give a fraction from 0 to 1, e.g. 0.5");
      }
      return value;
    }
  }

  /** A duration from {@code min} to {@code max}, written as {@link org.kvlab.api.Params#parseDuration} reads it. */
  public record Span(String setting, Duration min, Duration max) {
    /** {@code text} parsed, if in range; else a {@link SettingException} (also for text that is no duration). */
    public Duration check(String text) {
      Duration d;
      try {
        d = org.kvlab.api.Params.parseDuration(text, setting);
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new SettingException(setting, text + ": not a duration from " + range(), "write e.g. "
            + show(max.dividedBy(10).isZero() ? max : max.dividedBy(10)) + " (units us, ms, s, m, h; a bare number is"
            + " milliseconds)");
      }
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new SettingException(setting, text + ": out of range", "give a duration from " + range());
      }
      return d;
    }

    /** "1ms to 10m", for option descriptions. */
    public String range() {
      return show(min) + " to " + show(max);
    }

    private static String show(Duration d) {
      long ms = d.toMillis();
      return ms == 0 ? "0" : ms % 60_000 == 0 ? ms / 60_000 + "m" : ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
  }
}
