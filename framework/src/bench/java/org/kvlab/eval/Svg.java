package org.kvlab.eval;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The SVG charts the evaluation programs draw (with XChart) into docs/benchmarks, made the same bytes every run. */
public final class Svg {
  private static final Pattern ROUND = Pattern.compile("(\\d\\.\\d)\\d+");
  private static final Pattern CLIP_ID = Pattern.compile("clip\\d+");

  private Svg() {}

  /**
   * {@code svg} as XChart wrote it, with coordinates rounded to 0.1 px (XChart draws text as outlines with full float
   * precision; the files shrink by half) and clip-path ids numbered in order of appearance, so that the same chart
   * gives the same bytes.
   */
  public static String deterministic(String svg) {
    Matcher ids = CLIP_ID.matcher(ROUND.matcher(svg).replaceAll("$1"));
    Map<String, String> renamed = new LinkedHashMap<>();
    StringBuilder out = new StringBuilder();
    while (ids.find()) {
      ids.appendReplacement(out, renamed.computeIfAbsent(ids.group(), id -> "clip" + renamed.size()));
    }
    ids.appendTail(out);
    return out.toString();
  }
}
