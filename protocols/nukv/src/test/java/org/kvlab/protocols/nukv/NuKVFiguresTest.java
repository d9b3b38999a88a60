package org.kvlab.protocols.nukv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figure generator runs end to end on a short run (the numbers themselves are in docs/benchmarks/nukv.md). */
class NuKVFiguresTest {
  @Test
  void when_theFiguresRunBriefly_then_everyConfigurationMeasuresOperationsAndTheChartsAreWritten(@TempDir Path dir)
      throws Exception {
    List<NuKVFigures.Point> points = NuKVFigures.all(2, 300_000);
    assertEquals(2 * NuKVFigures.CONFIGS.size(), points.size());
    for (NuKVFigures.Point p : points) {
      assertTrue(p.ops() > 50, "too few operations measured for " + p);
      assertTrue(p.meanMillis() > 0, p.toString());
      // Structural, not timing: HLC PUTs are wait-free and eventual reads never wait, so neither is ever held.
      if (p.label().endsWith("HLC") || p.label().equals("E")) {
        assertEquals(0, p.putsHeld(), "a wait-free PUT was held: " + p);
      }
      if (p.label().equals("E") || p.label().startsWith("M/E")) {
        assertEquals(0, p.getsHeld(), "an eventual GET was held: " + p);
      }
    }
    NuKVFigures.chart(points, dir);
    assertTrue(Files.size(dir.resolve("nukv-fig-4.2-local.svg")) > 1000);
    assertTrue(Files.size(dir.resolve("nukv-fig-4.3-remote.svg")) > 1000);
  }
}
