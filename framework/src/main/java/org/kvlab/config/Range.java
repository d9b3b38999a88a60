package org.kvlab.config;

/**
 * A whole-number key of a cluster or experiment file (durations in milliseconds) and the values it accepts, both ends
 * included. Each loader keeps its keys in one table ({@code ConfigLoader.RANGES}, {@code ExperimentLoader.RANGES}):
 * it checks values against them, its page in docs/ lists the same ranges, and a test walks every key at both ends.
 */
public record Range(String key, long min, long max) {
  @Override
  public String toString() {
    return key + " " + min + ".." + max;
  }
}
