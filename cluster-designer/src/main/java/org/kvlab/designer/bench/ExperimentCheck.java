package org.kvlab.designer.bench;

import java.nio.file.Path;
import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import org.kvlab.config.ConfigException;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentLoader;

/**
 * Checks experiment text with kvlab's own loader (the one {@code kvlab bench} uses), so the designer shows the
 * CLI's messages: file, line and column, what is wrong and the fix.
 *
 * @param experiment the loaded experiment, or null when the text is invalid
 * @param message the loader's message ({@code kvlab: file:line:col: ... Fix: ...}), or null when valid
 * @param line the 1-based line the message points at, or 0
 */
record ExperimentCheck(Experiment experiment, String message, int line) {
  private static volatile List<String> installed;

  boolean ok() {
    return experiment != null;
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
      Experiment e = ExperimentLoader.parse(yaml, source, file, installedProtocols());
      return new ExperimentCheck(e, null, 0);
    } catch (ConfigException e) {
      return new ExperimentCheck(null, "kvlab: " + e.getMessage(), e.file() != null && e.file().equals(source) ? e.line() : 0);
    } catch (RuntimeException e) {
      return new ExperimentCheck(null, "kvlab: " + source + ": " + e.getMessage(), 0);
    }
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
