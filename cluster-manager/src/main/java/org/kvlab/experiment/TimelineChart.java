package org.kvlab.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.kvlab.sim.Timeline;

/**
 * The chart of a simulated run's time series ({@code kvlab sim --timeline}): operations completed OK per second on
 * the left axis, and on the right the counters that tell how the work was done, as a share of the operations
 * completed in the same bucket: DynaStar's {@code dynastar.multiPartition} and {@code dynastar.oracleQueries}, and
 * {@code consensus.slow} (M²Paxos acquisitions, EPaxos slow paths), and any counter ending in
 * {@code multiPartition} or {@code oracleQueries}.
 */
public final class TimelineChart {
  private TimelineChart() {}

  /** Whether counter {@code name} is drawn as a share of the operations. */
  public static boolean charted(String name) {
    return name.endsWith("multiPartition") || name.endsWith("oracleQueries") || name.equals("consensus.slow");
  }

  /** Draws {@code t} as {@code dir/name.png} (and .svg); returns the PNG. */
  public static Path write(Timeline t, String title, Path dir, String name) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart c = new XYChartBuilder().width(960).height(480).title(title).xAxisTitle("seconds of virtual time")
        .yAxisTitle("operations/s (OK)").build();
    Charts.style(c);
    c.getStyler().setMarkerSize(0);
    List<Timeline.Bucket> b = t.buckets();
    double width = t.bucketMicros() / 1e6;
    double[] x = new double[b.size()];
    double[] ops = new double[b.size()];
    for (int i = 0; i < b.size(); i++) {
      x[i] = b.get(i).startMicros() / 1e6;
      ops[i] = b.get(i).ok() / width;
    }
    c.addSeries("operations/s", x, ops).setMarker(SeriesMarkers.NONE);
    boolean shares = false;
    for (String counter : t.counterNames()) {
      if (!charted(counter)) {
        continue;
      }
      double[] y = new double[b.size()];
      for (int i = 0; i < b.size(); i++) {
        y[i] = b.get(i).completed() == 0 ? 0 : 100.0 * b.get(i).counter(counter) / b.get(i).completed();
      }
      var s = c.addSeries(counter + " (% of operations)", x, y);
      s.setMarker(SeriesMarkers.NONE);
      s.setYAxisGroup(1);
      shares = true;
    }
    if (shares) {
      c.setYAxisGroupTitle(1, "% of operations completed");
      c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
    }
    Charts.save(c, dir, name);
    return dir.resolve(name + ".png");
  }
}
