package org.kvlab.protocols.epaxos;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** EPaxos takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class EPaxosDeterminismRuleTest {
  @Test
  void when_ePaxosIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.epaxos");
  }
}
