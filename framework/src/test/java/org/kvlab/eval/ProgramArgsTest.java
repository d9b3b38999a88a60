package org.kvlab.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgramArgsTest {
  private static final String USAGE = "[rounds [table.md]]";

  @Test
  void when_helpIsAsked_then_theUsageIsPrintedWithTheCommandAndNoArgumentsAreReturned() {
    PrintStream out = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      assertNull(ProgramArgs.of("camu", "CamuEvaluation", USAGE, new String[] {"100", "--help"}, 2));
    } finally {
      System.setOut(out);
    }
    assertEquals("Usage: scripts/bench/eval camu CamuEvaluation [rounds [table.md]]",
        bytes.toString(StandardCharsets.UTF_8).strip());
  }

  @Test
  void when_argumentsAreGivenOrLeftOut_then_theyReadAsGivenOrTheDefault() {
    ProgramArgs a = ProgramArgs.of("camu", "CamuEvaluation", USAGE, new String[] {"1_000"}, 2);
    assertEquals(1, a.count());
    assertEquals(1_000, a.positive(0, "rounds", 200));
    assertEquals("table.md", a.text(1, "table.md"));
    assertEquals(List.of(0, 10_000), a.numbers("--keys", "0,10_000", 0));
    assertEquals(List.of("memory", "je"), a.choices("--stores", "memory,je", List.of("je", "memory")));
  }
}
