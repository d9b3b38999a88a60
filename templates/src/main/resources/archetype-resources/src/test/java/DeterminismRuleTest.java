package ${package};

import org.junit.jupiter.api.Test;
import org.kvlab.testing.ProtocolRules;

/** ${ProtocolName} takes time, randomness, timers and I/O only from its context, so the simulator can replay it. */
class DeterminismRuleTest {
  @Test
  void when_compiled_then_itUsesNoClockRandomnessThreadsOrIoOfItsOwn() {
    ProtocolRules.assertDeterministic("${package}");
  }
}
