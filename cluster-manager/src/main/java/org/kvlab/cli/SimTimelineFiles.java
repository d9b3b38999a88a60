package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.kvlab.experiment.TimelineChart;
import org.kvlab.sim.SimRunner.SeedReport;
import org.kvlab.sim.Timeline;

/** {@code kvlab sim --timeline FILE.csv}: one seed's time series as CSV and its chart beside it (FILE.png). */
final class SimTimelineFiles {
  private SimTimelineFiles() {}

  static void write(SeedReport r, Path csv, String what) {
    Timeline t = r.result().timeline();
    if (t == null) {
      return; // the run asked for none
    }
    Path dir = csv.toAbsolutePath().getParent();
    String base = csv.getFileName().toString().replaceFirst("\\.csv$", "");
    try {
      Files.createDirectories(dir);
      Files.writeString(csv, t.csv());
      Path png = TimelineChart.write(t, what + ", seed " + r.seed() + ": throughput and shares over time", dir, base);
      System.out.printf("time series of seed %d: %s (%d buckets of %s, %d OK operations), chart %s%n", r.seed(), csv,
          t.buckets().size(), org.kvlab.sim.Fault.ms(t.bucketMicros()), t.totalOk(), png);
    } catch (IOException e) {
      throw new Main.CliException(Main.FAILED, "--timeline " + csv + ": cannot write it (" + e.getMessage()
          + "). Fix: give a path in a writable directory");
    }
  }
}
