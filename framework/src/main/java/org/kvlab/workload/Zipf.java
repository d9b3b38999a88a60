package org.kvlab.workload;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * Zipf's law over ranks {@code 0 .. n-1}: rank r drawn with probability proportional to {@code 1 / (r + 1)^s} (YCSB's
 * "zipfian" is s = 0.99; DynaStar's Chirper picks its active user with s = 0.95). The cumulative distributions are
 * kept per (n, s), shared by every generator.
 */
public final class Zipf {
  private static final Map<String, double[]> CDFS = new ConcurrentHashMap<>();

  private Zipf() {}

  /** The cumulative distribution over {@code n} ranks with exponent {@code s}. */
  public static double[] cdf(int n, double s) {
    if (n < 1 || !(s >= 0)) {
      throw new IllegalArgumentException("a Zipf distribution needs n >= 1 ranks and an exponent >= 0, got n=" + n
          + ", s=" + s + ". Fix: e.g. n=1000, s=0.95");
    }
    double[] cdf = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1.0 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      cdf[i] /= sum;
    }
    return cdf;
  }

  /** One rank of {@code n} with exponent {@code s}. */
  public static int draw(RandomGenerator r, int n, double s) {
    double[] cdf = CDFS.computeIfAbsent(n + "/" + s, k -> cdf(n, s));
    int i = Arrays.binarySearch(cdf, r.nextDouble());
    return Math.min(n - 1, i >= 0 ? i : -i - 1);
  }
}
