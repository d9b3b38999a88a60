package org.kvlab.consensus.multicast;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

class DeterminismRuleTest {
  @Test
  void when_theMulticastBlockIsScanned_then_itTakesTimeRandomnessAndIoOnlyFromItsContext() {
    ProtocolRules.assertDeterministic("org.kvlab.consensus.multicast");
  }
}
