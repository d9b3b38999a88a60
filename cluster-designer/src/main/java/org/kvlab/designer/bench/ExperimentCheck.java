package org.kvlab.designer.bench;

import java.nio.file.Path;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ConfigException;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;
import org.kvlab.openloop.OpenLoopExperiment;

/**
 * Checks experiment text with kvlab's own loader (the one {@code kvlab bench} uses), so the designer shows the
 * CLI's messages: file, line and column, what is wrong and the fix.
 *
 * @param experiment the loaded experiment (YCSB, closed loop), or null when the text is invalid or open-loop
 * @param openLoop the loaded open-loop experiment ({@code mode: open-loop}), or null
 * @param message the loader's message ({@code kvlab: file:line:col: ... Fix: ...}), or null when valid
 * @param line the 1-based line the message points at, or 0
 */
record ExperimentCheck(Experiment experiment, OpenLoopExperiment openLoop, String message, int line) {
  private static final java.util.regex.Pattern OPEN_LOOP = java.util.regex.Pattern.compile("(?m)^mode:\\s*['\"]?open-loop");
  private static volatile List<String> installed;

  ExperimentCheck(Experiment experiment, String message, int line) {
    this(experiment, null, message, line);
  }

  boolean ok() {
    return experiment != null || openLoop != null;
  }

  /** True if the text says {@code mode: open-loop} (checked by the open-loop loader, run by OpenLoopBench). */
  static boolean isOpenLoop(String yaml) {
    return OPEN_LOOP.matcher(yaml).find();
  }

  /** The protocols a run may name: those installed (the plug-ins on the class path). */
  static List<String> installedProtocols() {
    List<String> p = installed;
    if (p == null) {
      p = Protocols.all().stream().map(Protocol::name).sorted().toList();
      installed = p;
    }
    return p;
  }

  /** Checks {@code yaml}; {@code file} (may be null) names it in messages and anchors relative cluster files. */
  static ExperimentCheck of(String yaml, Path file) {
    String source = file == null ? "(new experiment)" : file.toString();
    try {
      if (isOpenLoop(yaml)) {
        return new ExperimentCheck(null, OpenLoopExperiment.parse(yaml, file), null, 0);
      }
      Experiment e = ExperimentLoader.parse(yaml, source, file, installedProtocols());
      return new ExperimentCheck(e, null, 0);
    } catch (ConfigException e) {
      return new ExperimentCheck(null, "kvlab: " + e.getMessage(), e.file() != null && e.file().equals(source) ? e.line() : 0);
    } catch (RuntimeException e) {
      return new ExperimentCheck(null, "kvlab: " + source + ": " + e.getMessage(), 0);
    }
  }

  /** An open-loop experiment's runs: each cluster file with its protocol, then the rates it is offered. */
  static String runList(OpenLoopExperiment e) {
    StringBuilder b = new StringBuilder();
    for (Path c : e.clusters()) {
      b.append("cluster ").append(c.getFileName()).append('\n');
    }
    b.append("rates (requests/s): ").append(e.rates().stream().map(r -> String.format(java.util.Locale.ROOT, "%.0f", r))
        .collect(java.util.stream.Collectors.joining(", "))).append('\n');
    b.append("each: ").append(e.warmup().toMillis() / 1000.0).append(" s warm-up, ").append(e.duration().toMillis() / 1000.0)
        .append(" s measured; knee: p99 <= ").append(e.p99Bound().toNanos() / 1e6).append(" ms");
    return b.toString();
  }

  /** The runs, one per line as {@code kvlab bench --dry-run} lists them. */
  static String runList(Experiment e) {
    List<Experiment.Run> runs = e.runs();
    StringBuilder b = new StringBuilder();
    for (Experiment.Run r : runs) {
      b.append("run ").append(r.index()).append('/').append(runs.size()).append(' ').append(r.protocol()).append(' ')
          .append(r.variation().label()).append(e.repeats() > 1 ? " #" + r.repeat() : "").append('\n');
    }
    return b.toString().strip();
  }
}
