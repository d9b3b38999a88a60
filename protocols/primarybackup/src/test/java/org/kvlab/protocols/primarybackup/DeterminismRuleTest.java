package org.kvlab.protocols.primarybackup;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** Primary-backup takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_primaryBackupIsCompiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.primarybackup");
  }
}
