package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.sim.ControlledRun;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Schedule;

/** {@code kvlab sim --schedule FILE}: replays a schedule {@code kvlab explore} wrote and draws its diagram. */
final class ScheduleReplay {
  private ScheduleReplay() {}

  /** The exploration a schedule belongs to: its protocol (installed), topology, parameters, sessions and checks. */
  static Exploration exploration(Schedule s, String source) {
    Protocol p;
    try {
      p = Protocols.byName(s.protocol());
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, source + ": protocol: " + Clusters.notInstalled(s.protocol()));
    }
    try {
      SimSpec spec = SimSpec.defaults().withTopology(s.datacenters(), s.partitions()).withParams(new Params(s.params()));
      p.checkParameters(spec.params(), spec.topology());
      List<String> checks = s.checks().isEmpty() ? List.of() // invariants only
          : org.kvlab.check.Checkers.validate(s.checks()); // an unknown name: the known ones, and a Fix
      return new Exploration(spec, p, s.sessions(), s.crashes(), s.horizonMicros(), checks, s.seed());
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, source + ": " + e.getMessage());
    }
  }

  static int replay(Path file, int traceRows) {
    if (!Files.isRegularFile(file)) {
      throw new Main.CliException(Main.USAGE, "--schedule " + file + ": no such file. Fix: give the schedule file"
          + " ./kvlab explore wrote (it names it when it finds a violation)");
    }
    Schedule s;
    try {
      s = Schedule.read(file);
    } catch (IOException e) {
      throw new Main.CliException(Main.USAGE, "--schedule " + file + ": cannot read it (" + e.getMessage() + "). Fix:"
          + " give a readable file");
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--schedule " + e.getMessage());
    }
    Exploration e = exploration(s, file.toString());
    ControlledRun run;
    try {
      run = e.replay(s.choices());
    } catch (IllegalArgumentException ex) {
      throw new Main.CliException(Main.USAGE, "--schedule " + file + ": " + ex.getMessage());
    }
    System.out.printf("replaying %s: %s on %dx%d, %d sessions, %d events%n", file, s.protocol(), s.datacenters(),
        s.partitions(), s.sessions().size(), s.choices().size());
    Exploration.Verdict v = e.verdict(run);
    print(run, v, traceRows);
    return v == null ? Main.OK : Main.FAILED;
  }

  /** The verdict (or that none failed) and the run's diagram. */
  static void print(ControlledRun run, Exploration.Verdict v, int traceRows) {
    if (v == null) {
      System.out.println("no violation at the end of the schedule" + (run.complete() ? "" : " (the sessions have not"
          + " finished: the history is checked when they have)"));
      System.out.print(run.trace().diagram(run.history().operations(), List.of(), traceRows));
      return;
    }
    System.out.println("VIOLATION " + v.check() + ": " + v.description());
    System.out.println("messages of the run (t counts events: the k-th event at k ms):");
    System.out.print(v.diagram(run, traceRows).indent(2));
  }
}
