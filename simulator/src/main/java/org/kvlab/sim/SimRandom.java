package org.kvlab.sim;

import java.util.Random;

/**
 * {@link Random} with the same sequence for the same seed (the same 48-bit linear congruential generator, so every
 * {@code next*} method, which all draw through {@link #next(int)}, returns what {@code new Random(seed)} would), but
 * with its state in a plain field instead of an {@code AtomicLong}: a simulation runs on one thread, and every message
 * and operation draws from it (a compare-and-swap each time otherwise).
 */
final class SimRandom extends Random {
  private static final long MULTIPLIER = 0x5DEECE66DL;
  private static final long ADDEND = 0xBL;
  private static final long MASK = (1L << 48) - 1;

  /** Set by {@link #setSeed}, which Random's constructor calls (so no initializer here: it would run after it). */
  private long state;

  SimRandom(long seed) {
    super(seed);
  }

  @Override
  public synchronized void setSeed(long seed) {
    state = (seed ^ MULTIPLIER) & MASK;
    super.setSeed(seed); // also forgets a cached nextGaussian, as Random does
  }

  @Override
  protected int next(int bits) {
    state = (state * MULTIPLIER + ADDEND) & MASK;
    return (int) (state >>> (48 - bits));
  }
}
