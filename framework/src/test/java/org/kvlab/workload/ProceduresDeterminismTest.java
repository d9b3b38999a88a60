package org.kvlab.workload;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/**
 * Goal: the families' procedures run inside every protocol's servers, so they keep the protocols' determinism rule
 * (no clock, no unseeded randomness, no threads, no I/O): a seed replays the same run.
 */
class ProceduresDeterminismTest {
  @Test
  void when_theFamiliesAreInspected_then_theyKeepTheDeterminismRule() {
    ProtocolRules.assertDeterministic("org.kvlab.workload.chirper");
    ProtocolRules.assertDeterministic("org.kvlab.workload.tpcc");
  }
}
