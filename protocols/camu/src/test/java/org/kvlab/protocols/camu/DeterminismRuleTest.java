package org.kvlab.protocols.camu;

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

class DeterminismRuleTest {
  @Test
  void when_camuIsScanned_then_itTakesTimeRandomnessAndIoOnlyFromItsContext() {
    ProtocolRules.assertDeterministic("org.kvlab.protocols.camu");
  }
}
