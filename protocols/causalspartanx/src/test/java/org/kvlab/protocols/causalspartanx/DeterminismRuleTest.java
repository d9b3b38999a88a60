package org.kvlab.protocols.causalspartanx;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** CausalSpartanX takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_causalspartanxIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.causalspartanx");
  }
}
