package org.kvlab.sim.explore;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.kvlab.sim.Script;

/** The sessions of an exploration drawn from a seed: each a few puts and gets of a few keys. */
public final class Sessions {
  private Sessions() {}

  /**
   * {@code sessions} sessions spread over the datacenters round robin, each of {@code ops} operations: a put or a get
   * (even odds) of one of {@code keys} keys {@code k0..}; each put writes a value no other put writes
   * ({@code s<session>.<n>}). The same arguments give the same sessions.
   */
  public static List<Script> draw(int sessions, int ops, int keys, int datacenters, long seed) {
    if (sessions < 1 || ops < 1 || keys < 1) {
      throw new IllegalArgumentException("sessions, operations and keys must each be at least 1 (got " + sessions
          + ", " + ops + ", " + keys + "). Fix: e.g. --sessions 2 --ops 3 --keys 2");
    }
    Random random = new Random(seed);
    List<Script> out = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      Script script = Script.at(s % datacenters);
      for (int i = 0; i < ops; i++) {
        String key = "k" + random.nextInt(keys);
        script = random.nextBoolean() ? script.put(key, "s" + s + "." + (i + 1)) : script.get(key);
      }
      out.add(script);
    }
    return out;
  }
}
