package org.kvlab.consensus.raft;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** The consensus blocks (MicroRaft's integration included) take time, randomness, timers and I/O from a context. */
class DeterminismRuleTest {
  @Test
  void when_theConsensusBlocksAreCompiled_then_theyUseNoClockRandomnessThreadsOrIoOfTheirOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.consensus");
  }
}
