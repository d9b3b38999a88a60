package org.kvlab.protocols.accf;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** ACCF takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_accfIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.accf");
  }
}
