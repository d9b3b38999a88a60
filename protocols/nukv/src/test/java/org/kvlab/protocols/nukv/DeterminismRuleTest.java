package org.kvlab.protocols.nukv;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** NuKV (and the MicroRaft integration in it) takes time, randomness, timers and I/O only from its context. */
class DeterminismRuleTest {
  @Test
  void when_nukvIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.nukv");
  }
}
