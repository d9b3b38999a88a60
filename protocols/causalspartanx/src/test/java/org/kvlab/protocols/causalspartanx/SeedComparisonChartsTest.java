package org.kvlab.protocols.causalspartanx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.protocols.causalspartanx.SeedComparisons.RotxLatencies;

/** The charts of docs/benchmarks/seed-003-comparisons.md are well-formed SVG and the same data draws the same bytes. */
class SeedComparisonChartsTest {

  private static void drawAll(Path dir) throws Exception {
    SeedComparisonCharts charts = new SeedComparisonCharts(dir);
    charts.putLatencyVsSkew(new double[] {0, 5, 10, 15}, new double[][] {{2, 3.5, 5.9, 8.3}, {0.5, 0.5, 0.5, 0.5}});
    double[] gr = {18.6, 28.5, 48.4, 89.3, 99.6, 108.2};
    double[] csx = {18.4, 18.4, 18.4, 18.4, 18.4, 18.4};
    charts.visibilityVsThirdDc(new double[][] {gr, csx}, new double[][] {gr, csx});
    RotxLatencies r = new RotxLatencies(List.of(1.0, 1.1, 220.0), List.of(101.0, 318.0));
    charts.rotxCdf(List.of(r, r), List.of(new RotxLatencies(List.of(1.0, 1.1), List.of(101.0))));
  }

  @Test
  void when_chartsAreDrawnTwice_then_theyAreWellFormedSvgWithIdenticalBytes(@TempDir Path a, @TempDir Path b)
      throws Exception {
    drawAll(a);
    drawAll(b);
    DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
    xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    for (String file : List.of(SeedComparisonCharts.PUT_VS_SKEW, SeedComparisonCharts.VISIBILITY,
        SeedComparisonCharts.ROTX_CDF)) {
      assertEquals("svg", xml.newDocumentBuilder().parse(a.resolve(file).toFile()).getDocumentElement().getTagName());
      assertArrayEquals(Files.readAllBytes(a.resolve(file)), Files.readAllBytes(b.resolve(file)), file);
    }
  }
}
