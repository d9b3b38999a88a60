package org.kvlab.protocols.m2paxos;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** M²Paxos takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_m2paxosIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.m2paxos");
  }
}
