package org.kvlab.protocols.dynastar;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

class DeterminismRuleTest {
  @Test
  void when_dynastarIsScanned_then_itTakesTimeRandomnessAndIoOnlyFromItsContext() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.dynastar");
  }
}
