package org.kvlab.protocols.eventual;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** Eventual takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_eventualIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.eventual");
  }
}
