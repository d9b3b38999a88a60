package org.kvlab.protocols.eventual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.kvlab.history.Operation;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.Simulation;

/** Eventual under the deterministic simulator. */
class EventualSimTest {

  @Test
  void when_sameSeedRunsTwice_then_runsAreIdenticalBitForBit() {
    SimSpec spec = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash", "slow")).withDuration(3_000_000);
    SimResult a = new Simulation(spec, new Eventual(), 42).run();
    SimResult b = new Simulation(spec, new Eventual(), 42).run();
    assertTrue(a.history().size() > 100, "the run should do work: " + a.history().size());
    assertEquals(a.history().operations(), b.history().operations());
    assertEquals(a.trace().fingerprint(), b.trace().fingerprint());
    assertEquals(a.deliveries(), b.deliveries());
    SimResult c = new Simulation(spec, new Eventual(), 43).run();
    assertFalse(a.history().operations().equals(c.history().operations()), "another seed gives another run");
  }

  @Test
  void when_partitionsHeal_then_everyDatacenterReadsTheSameValues() {
    for (long seed = 1; seed <= 20; seed++) {
      SimSpec spec = SimSpec.defaults().withFaultKinds(Set.of("partition", "skew", "crash")).withDuration(3_000_000);
      SimResult r = new Simulation(spec, new Eventual(), seed).run();
      assertEquals(List.of(), r.failures());
      long quiet = spec.durationMicros() + spec.settleMicros(); // the final reads
      Map<String, Optional<ByteString>> dc0 = new HashMap<>();
      int compared = 0;
      for (Operation op : r.history().operations()) {
        if (op.type() == Operation.Type.GET && op.ok() && op.invokeMicros() > quiet) {
          if (op.dc() == 0) {
            dc0.put(op.key(), op.readValue());
          }
        }
      }
      for (Operation op : r.history().operations()) {
        if (op.type() == Operation.Type.GET && op.ok() && op.invokeMicros() > quiet && op.dc() == 1) {
          assertEquals(dc0.get(op.key()), op.readValue(), "seed " + seed + " key " + op.key());
          compared++;
        }
      }
      assertTrue(compared > 0);
    }
  }
}
