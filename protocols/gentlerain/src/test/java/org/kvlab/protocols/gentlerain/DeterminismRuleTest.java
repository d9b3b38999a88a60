package org.kvlab.protocols.gentlerain;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** GentleRain takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_gentlerainIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.gentlerain");
  }
}
