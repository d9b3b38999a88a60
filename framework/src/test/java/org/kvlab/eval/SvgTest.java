package org.kvlab.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SvgTest {
  @Test
  void when_anSvgHasLongFractionsAndRandomClipIds_then_theyAreRoundedAndNumberedInOrder() {
    String xchart = "<clipPath id=\"clip8812\"/><path d=\"M12.345678 0.9999\" clip-path=\"url(#clip8812)\"/>"
        + "<clipPath id=\"clip17\"/><g clip-path=\"url(#clip17)\" transform=\"translate(31 50.0)\"/>";
    assertEquals("<clipPath id=\"clip0\"/><path d=\"M12.3 0.9\" clip-path=\"url(#clip0)\"/>"
        + "<clipPath id=\"clip1\"/><g clip-path=\"url(#clip1)\" transform=\"translate(31 50.0)\"/>",
        Svg.deterministic(xchart));
  }

  @Test
  void when_theSameChartIsWrittenWithOtherClipIds_then_theBytesAreTheSame() {
    assertEquals(Svg.deterministic("<a id=\"clip5\"/><b href=\"#clip9\"/><c href=\"#clip5\"/>"),
        Svg.deterministic("<a id=\"clip70\"/><b href=\"#clip3\"/><c href=\"#clip70\"/>"));
  }
}
