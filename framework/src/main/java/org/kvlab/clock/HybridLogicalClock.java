package org.kvlab.clock;

import java.util.Objects;
import org.kvlab.api.Clock;
import org.kvlab.api.Invariants;

/**
 * Hybrid Logical Clock (HLC, Kulkarni et al.), exactly as Algorithm 2.1 of seed 003 (Roohitavaf,
 * "Consistency for Distributed Data Stores", §2.5, p.20), over an injected physical {@link Clock} so it
 * runs on real time ({@link PhysicalClock}) and on the simulator's virtual time alike.
 *
 * <p>A timestamp is ⟨l, c⟩: {@code l} tracks the largest physical time seen (in ms), {@code c} is a
 * counter that orders events with the same {@code l}. It is packed into one {@code long} as in the
 * DKVF/CausalSpartan repository: {@code l} in the upper 48 bits ({@code millis << 16}), {@code c} in the
 * lower 16 bits. Valid timestamps are non-negative ({@code l < 2^47}), so comparing the packed longs with
 * {@code <} / {@link Long#compare} is exactly the lexicographic order on ⟨l, c⟩.
 *
 * <p>Properties (seed 003 §2.5 p.19; digest §9 item 1): every timestamp issued is larger than the
 * previous one, even if the physical clock stands still or goes backward; {@code l >= pt} at every event;
 * {@code l} never exceeds the largest physical time or received {@code l} seen; e → f (happens-before)
 * implies hlc(e) &lt; hlc(f); {@code c} stays bounded. The physical clock is only read, never adjusted.
 *
 * <p>Counter overflow: if {@code c} would exceed {@value #C_MAX} (more than 65,535 events with the same
 * {@code l}, e.g. a physical clock stuck far behind a peer's) the operation throws
 * {@link Invariants.InvariantViolation} and leaves the clock unchanged; it never wraps silently.
 *
 * <p>Before its first event the clock is ⟨0, 0⟩ (or the initial timestamp given to the constructor).
 * Physical readings below 0 are legal but are dominated by {@code l >= 0}; the physical clock is expected
 * to return epoch milliseconds. A reading above {@link #L_MAX_MILLIS} is an invariant violation.
 *
 * <p><b>Not thread-safe, by contract:</b> an instance belongs to one node and is called only from that
 * node's event loop (handlers and timers of a node never run concurrently). It takes no locks.
 */
public final class HybridLogicalClock {
  /** Number of low bits holding {@code c}. */
  public static final int C_BITS = 16;
  /** Largest counter value. */
  public static final int C_MAX = 0xFFFF;
  /** Largest {@code l} (ms) that keeps packed timestamps non-negative: 2^47 - 1 (year ≈ 6429). */
  public static final long L_MAX_MILLIS = (1L << 47) - 1;

  private final Clock physical;
  private long l;
  private int c;

  /** A clock starting at ⟨0, 0⟩. */
  public HybridLogicalClock(Clock physical) {
    this(physical, 0L);
  }

  /**
   * A clock whose last issued timestamp is {@code initial} (e.g. the largest timestamp a restarted
   * node finds in its durable store), so later timestamps are larger than it.
   */
  public HybridLogicalClock(Clock physical, long initial) {
    this.physical = Objects.requireNonNull(physical, "physical");
    checkTimestamp(initial, "initial");
    this.l = l(initial);
    this.c = c(initial);
  }

  /**
   * Send or local event: the left column of Alg 2.1 (lines 1–6), seed 003 §2.5:
   * {@code l' = l; l = max(l', pt); c = (l == l') ? c + 1 : 0}. Also CausalSpartanX's
   * {@code updateHLC()} (Alg 5.3 lines 10–14, p.54), used before heartbeats, is this same rule.
   *
   * @return the new timestamp, larger than every timestamp this clock issued before
   * @throws Invariants.InvariantViolation if {@code c} would exceed {@value #C_MAX}
   */
  public long now() {
    long pt = readPhysical();
    long lPrev = l;
    long lNew = Math.max(lPrev, pt);
    int cNew = (lNew == lPrev) ? increment(c, lNew) : 0;
    return commit(lNew, cNew);
  }

  /**
   * Receive event for a message stamped {@code received}: the right column of Alg 2.1 (lines 7–14),
   * seed 003 §2.5:
   *
   * <pre>
   * l' = l;  l = max(l', m.l, pt)
   * if l == l' == m.l : c = max(c, m.c) + 1
   * elif l == l'      : c = c + 1
   * elif l == m.l     : c = m.c + 1
   * else              : c = 0
   * </pre>
   *
   * @return the new timestamp, larger than both {@code received} and every timestamp issued before
   * @throws Invariants.InvariantViolation if {@code received} is not a valid timestamp or {@code c}
   *     would exceed {@value #C_MAX}
   */
  public long update(long received) {
    checkTimestamp(received, "received");
    long pt = readPhysical();
    long lPrev = l;
    long lMsg = l(received);
    int cMsg = c(received);
    long lNew = Math.max(Math.max(lPrev, lMsg), pt);
    int cNew;
    if (lNew == lPrev && lNew == lMsg) {
      cNew = increment(Math.max(c, cMsg), lNew);
    } else if (lNew == lPrev) {
      cNew = increment(c, lNew);
    } else if (lNew == lMsg) {
      cNew = increment(cMsg, lNew);
    } else {
      cNew = 0;
    }
    return commit(lNew, cNew);
  }

  /**
   * CausalSpartanX's {@code updateHLCforPut(dt)}: Alg 5.2 lines 23–29, seed 003 §5.2.2 p.53 (called at
   * line 9 as "updateHCL(dt)"; the same procedure is Alg 7.2 lines 23–29 of ACCF, p.93). {@code dt} is
   * the largest dependency timestamp of the PUT (line 8: max of the client's {@code ds} values and
   * {@code DSV[m]}); the server's HLC ({@code VV[m]}) is advanced with the receive rule of Alg 2.1, with
   * {@code dt} in place of the message timestamp:
   *
   * <pre>
   * 24  l' ← VV[m].l
   * 25  VV[m].l ← max(l', PC, dt.l)
   * 26  if VV[m].l = l' = dt.l : VV[m].c ← max(VV[m].c, dt.c) + 1
   * 27  elif VV[m].l = l'      : VV[m].c ← VV[m].c + 1
   * 28  elif VV[m].l = dt.l    : VV[m].c ← dt.c + 1
   * 29  else                   : VV[m].c ← 0
   * </pre>
   *
   * <p>This is the same computation as {@link #update(long)}. The PUT never waits: if the dependency is
   * ahead of the physical clock, the HLC jumps to ⟨dt.l, dt.c + 1⟩ instead of sleeping. The new version's
   * {@code ut} is the returned value (line 12: {@code d.ut ← VV[m]}), which is larger than {@code dt}.
   * Pass 0 when the PUT has no dependency.
   *
   * @return the new timestamp, larger than {@code dependencyTs} and every timestamp issued before
   */
  public long updateForPut(long dependencyTs) {
    return update(dependencyTs);
  }

  /** The last timestamp issued (the initial one if none was issued yet); does not tick. */
  public long current() {
    return of(l, c);
  }

  /** The {@code l} part of {@code ts}, in physical milliseconds. */
  public static long l(long ts) {
    requireValid(ts);
    return ts >>> C_BITS;
  }

  /** The {@code c} part of {@code ts}. */
  public static int c(long ts) {
    requireValid(ts);
    return (int) (ts & C_MAX);
  }

  /**
   * Packs ⟨millis, c⟩.
   *
   * @throws IllegalArgumentException unless {@code 0 <= millis <= L_MAX_MILLIS} and
   *     {@code 0 <= c <= C_MAX}
   */
  public static long of(long millis, int c) {
    if (millis < 0 || millis > L_MAX_MILLIS) {
      throw new IllegalArgumentException("HLC l out of range [0, " + L_MAX_MILLIS + "]: " + millis);
    }
    if (c < 0 || c > C_MAX) {
      throw new IllegalArgumentException("HLC c out of range [0, " + C_MAX + "]: " + c);
    }
    return (millis << C_BITS) | c;
  }

  /** {@code "l.c"}, e.g. {@code "1700000000123.4"}. */
  public static String format(long ts) {
    return l(ts) + "." + c(ts);
  }

  @Override
  public String toString() {
    return "HLC[" + l + "." + c + "]";
  }

  private long readPhysical() {
    long pt = physical.millis();
    Invariants.check(
        pt <= L_MAX_MILLIS, "HLC: physical clock reading %d exceeds the 48-bit l range (max %d)", pt,
        L_MAX_MILLIS);
    return pt;
  }

  /** c + 1, refusing to wrap past {@link #C_MAX}. */
  private static int increment(int counter, long atL) {
    Invariants.check(
        counter < C_MAX,
        "HLC counter overflow: c would exceed %d at l=%d (more than %d events with the same l; is a"
            + " physical clock far behind its peers or stuck?)",
        C_MAX, atL, C_MAX + 1);
    return counter + 1;
  }

  private long commit(long lNew, int cNew) {
    long ts = of(lNew, cNew);
    l = lNew;
    c = cNew;
    return ts;
  }

  private static void checkTimestamp(long ts, String what) {
    Invariants.check(ts >= 0, "HLC: %s timestamp %d is negative (not a valid packed HLC)", what, ts);
  }

  private static void requireValid(long ts) {
    if (ts < 0) {
      throw new IllegalArgumentException("not a valid HLC timestamp (negative): " + ts);
    }
  }
}
