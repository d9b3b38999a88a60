package org.kvlab.runtime;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Lets a repeated log line through once per period per key, counting the repeats it held back, so a
 * misconfigured peer that retries every second does not fill the log. Bounded: it remembers at most
 * {@code maxKeys} keys (the oldest are forgotten, which only means one more line is logged).
 */
final class RepeatLimiter {
  private final long periodNanos;
  private final int maxKeys;
  private final Map<String, long[]> seen; // key -> {last logged at, repeats held back since}

  RepeatLimiter(long periodNanos, int maxKeys) {
    this.periodNanos = periodNanos;
    this.maxKeys = maxKeys;
    this.seen = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
        return size() > RepeatLimiter.this.maxKeys;
      }
    };
  }

  /**
   * Returns -1 if the line for {@code key} is to be held back now; otherwise how many were held back since
   * it was last logged (0 the first time).
   */
  synchronized long admit(String key, long nowNanos) {
    long[] s = seen.get(key);
    if (s == null) {
      seen.put(key, new long[] {nowNanos, 0});
      return 0;
    }
    if (nowNanos - s[0] < periodNanos) {
      s[1]++;
      return -1;
    }
    long held = s[1];
    s[0] = nowNanos;
    s[1] = 0;
    return held;
  }
}
