package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.kvlab.api.Params;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.check.Checkers;
import org.kvlab.sim.Script;
import org.kvlab.sim.SimLimits;
import org.kvlab.sim.SimSpec;
import org.kvlab.sim.explore.Exploration;
import org.kvlab.sim.explore.Explorer;
import org.kvlab.sim.explore.Schedule;
import org.kvlab.sim.explore.ScheduleShrinker;
import org.kvlab.sim.explore.Sessions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvlab explore}: every interleaving of a small run, over the real protocol code (docs/explore.md). */
@Command(name = "explore", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Explore the interleavings of a small run of a protocol: every choice of the next event (deliver a"
        + " message, fire a timer, a session invokes, a crash) is a branch; visited states are pruned by fingerprint."
        + " The checkers judge every completed history, protocol invariants every state. A violation is written as a"
        + " replayable schedule (./kvlab sim --schedule FILE). Exit code 0 if none was found, 1 if one was, 2 for bad"
        + " usage. See docs/explore.md.")
final class ExploreCommand implements Callable<Integer> {
  static final SimLimits.Whole DATACENTERS = new SimLimits.Whole("datacenters", 1, 4);
  static final SimLimits.Whole PARTITIONS = new SimLimits.Whole("partitions", 1, 4);
  static final SimLimits.Whole SESSIONS = new SimLimits.Whole("sessions", 1, 4);
  static final SimLimits.Whole OPS = new SimLimits.Whole("ops", 1, 8);
  static final SimLimits.Whole KEYS = new SimLimits.Whole("keys", 1, 8);
  static final SimLimits.Whole FAULTS = new SimLimits.Whole("faults", 0, 3);
  static final SimLimits.Whole MAX_DEPTH = new SimLimits.Whole("max-depth", 1, 10_000);
  static final SimLimits.Whole TRACE_ROWS = new SimLimits.Whole("trace-rows", 1, 10_000);
  static final SimLimits.Span HORIZON = new SimLimits.Span("horizon", java.time.Duration.ZERO,
      java.time.Duration.ofHours(1));
  static final SimLimits.Span TIME_LIMIT = new SimLimits.Span("time-limit", java.time.Duration.ZERO,
      java.time.Duration.ofHours(24));

  @Option(names = "--protocol", required = true, description = "protocol name (see ./kvlab protocols)") String protocol;
  @Option(names = "--datacenters", defaultValue = "2", description = "datacenters, 1 to 4 (default: ${DEFAULT-VALUE})") int datacenters;
  @Option(names = "--partitions", defaultValue = "1", description = "partitions per datacenter, 1 to 4 (default: ${DEFAULT-VALUE})") int partitions;
  @Option(names = "--param", description = "protocol parameter name=value (repeatable)") Map<String, String> params = new TreeMap<>();
  @Option(names = "--sessions", defaultValue = "2", description = "client sessions, 1 to 4, on the datacenters in turn (default: ${DEFAULT-VALUE})") int sessions;
  @Option(names = "--ops", defaultValue = "2", description = "operations per session, 1 to 8, puts and gets drawn from --seed (default: ${DEFAULT-VALUE})") int ops;
  @Option(names = "--keys", defaultValue = "1", description = "keys k0.., 1 to 8 (default: ${DEFAULT-VALUE})") int keys;
  @Option(names = "--session", paramLabel = "SCRIPT", description = "a session of your own instead of drawn ones, e.g."
      + " \"dc0 put k0=a; get k1\" (repeatable)") List<String> scripts = new ArrayList<>();
  @Option(names = "--faults", defaultValue = "0", description = "server crashes a run may choose (each may restart), 0 to 3 (default: ${DEFAULT-VALUE})") int faults;
  @Option(names = "--horizon", defaultValue = "0ms", description = "bound on the clocks' time: a timer due later never"
      + " fires, 0 to 1h (default: ${DEFAULT-VALUE}: only timers due at once; each heartbeat let in multiplies the"
      + " states)") String horizon;
  @Option(names = "--mode", defaultValue = "bfs", description = "bfs (shortest counterexample, exhaustive within the"
      + " bounds), random (random walks) or pct (prioritized walks) (default: ${DEFAULT-VALUE})") String mode;
  @Option(names = "--max-depth", defaultValue = "40", description = "events per run at most, 1 to 10,000 (default: ${DEFAULT-VALUE})") int maxDepth;
  @Option(names = "--max-states", defaultValue = "1000000", description = "distinct states at most, >= 1 (default: ${DEFAULT-VALUE})") long maxStates;
  @Option(names = "--time-limit", defaultValue = "5m", description = "wall-clock bound, 0 for none (default: ${DEFAULT-VALUE})") String timeLimit;
  @Option(names = "--check", split = ",", defaultValue = "session", description = "checkers run on every completed"
      + " history (default: ${DEFAULT-VALUE}; not convergence)") List<String> checks;
  @Option(names = "--seed", defaultValue = "1", description = "seed of the drawn sessions, the protocol's random"
      + " sources and the random/pct walks (default: ${DEFAULT-VALUE})") long seed;
  @Option(names = "--out", defaultValue = "explore-schedule.txt", paramLabel = "FILE", description = "where a violation's"
      + " schedule goes (default: ${DEFAULT-VALUE})") Path out;
  @Option(names = "--no-shrink", description = "keep a random/pct violation's schedule as found (bfs's is shortest already)") boolean noShrink;
  @Option(names = "--self-check", description = "replay every explored state and compare its fingerprint (determinism)") boolean selfCheck;
  @Option(names = "--trace-rows", defaultValue = "60", description = "rows of the violation's diagram, 1 to 10,000 (default: ${DEFAULT-VALUE})") int traceRows;

  @Override
  public Integer call() {
    Protocol p;
    try {
      checks = Checkers.validate(checks);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    try {
      p = Protocols.byName(protocol);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--protocol: " + Clusters.notInstalled(protocol));
    }
    Exploration exploration;
    Explorer.Bounds bounds;
    try {
      DATACENTERS.check(datacenters);
      PARTITIONS.check(partitions);
      SESSIONS.check(sessions);
      OPS.check(ops);
      KEYS.check(keys);
      FAULTS.check(faults);
      MAX_DEPTH.check(maxDepth);
      TRACE_ROWS.check(traceRows);
      long limit = TIME_LIMIT.check(timeLimit).toMillis();
      long horizonMicros = HORIZON.check(horizon).toNanos() / 1000;
      SimCommand.requireDeclared(p, params);
      SimSpec spec = SimSpec.defaults().withTopology(datacenters, partitions).withParams(new Params(params));
      p.checkParameters(spec.params(), spec.topology());
      List<Script> sessionList = new ArrayList<>();
      for (String s : scripts) {
        Script script = Schedule.session(s);
        if (script.dc() >= datacenters) {
          throw new IllegalArgumentException("--session \"" + s + "\": datacenter " + script.dc() + " is not one of"
              + " the " + datacenters + ". Fix: use dc0..dc" + (datacenters - 1) + " or raise --datacenters");
        }
        sessionList.add(script);
      }
      if (sessionList.isEmpty()) {
        sessionList = Sessions.draw(sessions, ops, keys, datacenters, seed);
      }
      exploration = new Exploration(spec, p, sessionList, faults, horizonMicros, checks, seed);
      bounds = new Explorer.Bounds(mode, maxDepth, maxStates, limit, seed, selfCheck);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    }
    System.out.printf("exploring %s: %d datacenter%s x %d partition%s, crashes <= %d, horizon %s, mode %s, depth <= %d,"
        + " states <= %d, checks: %s%n", p.name(), datacenters, datacenters == 1 ? "" : "s", partitions,
        partitions == 1 ? "" : "s", faults, horizon, mode, maxDepth, maxStates, String.join(",", checks));
    int i = 0;
    for (Script s : exploration.scripts()) {
      System.out.printf("  session s%d: %s%n", i++, Schedule.describe(s));
    }
    Explorer.Result r = new Explorer(exploration, bounds).run();
    System.out.printf("states %,d, transitions %,d, events run %,d (replays included), completed histories %,d,"
        + " max depth %d, %.2f s, %,.0f states/s%n", r.states(), r.transitions(), r.events(), r.completed(),
        r.maxDepth(), r.nanos() / 1e9, r.statesPerSecond());
    if (r.found() == null) {
      System.out.println(switch (r.stop()) {
        case "exhausted" -> "no violation: every state within the bounds explored";
        case "depth bound" -> "no violation within depth " + maxDepth + " (runs longer than that were cut: raise"
            + " --max-depth to go on)";
        default -> "no violation found; stopped at " + r.stop() + " (not exhaustive)";
      });
      return Main.OK;
    }
    List<String> choices = r.found().choices();
    Exploration.Verdict verdict = r.found().verdict();
    org.kvlab.sim.ControlledRun run = r.found().run();
    if (!mode.equals("bfs") && !noShrink) {
      ScheduleShrinker.Shrunk s = ScheduleShrinker.shrink(exploration, choices, verdict.check(), 5_000);
      System.out.printf("shrunk the schedule: %d -> %d events (%d replays)%n", choices.size(), s.after().size(),
          s.replays());
      choices = s.after();
      verdict = s.verdict();
      run = s.run();
    }
    Schedule schedule = new Schedule(p.name(), datacenters, partitions, params, exploration.scripts(), faults,
        exploration.horizonMicros(), checks,
        seed, choices, verdict.check() + ": " + verdict.description());
    try {
      schedule.write(out);
    } catch (IOException e) {
      throw new Main.CliException(Main.USAGE, "--out " + out + ": cannot write (" + e.getMessage() + "). Fix: give a"
          + " path in a writable directory");
    }
    System.out.printf("found at depth %d; schedule written to %s%n  replay: ./kvlab sim --schedule %s%n",
        choices.size(), out, out);
    ScheduleReplay.print(run, verdict, traceRows);
    return Main.FAILED;
  }
}
