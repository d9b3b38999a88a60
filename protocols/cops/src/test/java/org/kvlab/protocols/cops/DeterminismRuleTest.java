package org.kvlab.protocols.cops;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** COPS takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_copsIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.cops");
  }
}
