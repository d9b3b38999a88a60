package org.kvlab.check;

import java.util.List;

/**
 * One anomaly.
 *
 * @param kind a short name, e.g. {@code read-your-writes} or {@code causal: overwritten dependency}
 * @param explanation why these operations violate the property, in words, naming them
 * @param operations ids of the operations involved (the simulator draws the trace around them)
 */
public record Violation(String kind, String explanation, List<Long> operations) {}
