package org.kvlab.protocols.accf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of seed 003 Fig 7.2 in the simulator (virtual time, so not a timing assertion): with B1's messages delayed
 * 120 ms App1 keeps its throughput under 4 x 1 and loses more than half under 2 x 2; with B2's delayed 120 ms App2
 * keeps its throughput under 2 x 2 and loses much of it under 4 x 1. Fewer rounds than {@link Fig72#main}.
 */
class Fig72ShapeTest {
  @Test
  void when_anIrrelevantServerIsSlow_then_app1PrefersFourByOneAndApp2PrefersTwoByTwo(@TempDir Path dir) throws Exception {
    Fig72.Curves c = Fig72.measure(new double[] {0, 120}, 8, 20);
    double app1TwoByTwo = c.app1()[0][1];
    double app1FourByOne = c.app1()[1][1];
    double app2TwoByTwo = c.app2()[0][1];
    double app2FourByOne = c.app2()[1][1];
    String table = Fig72.table(c);
    assertTrue(app1FourByOne > 0.8, "App1 4x1 should be unaffected by delay_B1:\n" + table);
    assertTrue(app1TwoByTwo < 0.5, "App1 2x2 should drop by more than half:\n" + table);
    assertTrue(app2TwoByTwo > 0.8, "App2 2x2 should be unaffected by delay_B2:\n" + table);
    assertTrue(app2FourByOne < 0.5 * app2TwoByTwo, "App2 4x1 should drop substantially:\n" + table);
    Fig72.chart(dir, Fig72.APP1_SVG, "App1", "delay_B1 (ms)", c.delays(), c.app1());
    DocumentBuilderFactory xml = DocumentBuilderFactory.newInstance();
    xml.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    assertEquals("svg", xml.newDocumentBuilder().parse(dir.resolve(Fig72.APP1_SVG).toFile()).getDocumentElement().getTagName());
    assertTrue(Files.size(dir.resolve(Fig72.APP1_SVG)) > 1000);
  }
}
