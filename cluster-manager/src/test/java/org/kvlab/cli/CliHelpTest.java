package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Goal: {@code --help} describes every option and positional parameter of every command (issue 27: {@code sim
 * --help} left {@code --datacenters}, {@code --partitions}, {@code --get-ratio}, {@code --rotx-keys} blank). Method:
 * picocli's model of Main's command line, every command and subcommand, each description as {@code --help} prints it
 * (default values and completion candidates filled in).
 */
class CliHelpTest {
  @Test
  void when_helpIsPrinted_then_everyOptionOfEveryCommandHasADescription() {
    List<String> missing = new ArrayList<>();
    walk(new CommandLine(new Main()), missing);
    assertTrue(missing.isEmpty(), "options without a description:\n" + String.join("\n", missing));
  }

  @Test
  void when_theModelIsWalked_then_simAndItsOptionsAreInIt() {
    CommandSpec sim = new CommandLine(new Main()).getSubcommands().get("sim").getCommandSpec();
    assertTrue(described(sim.findOption("--datacenters")).contains("1 to 16"), described(sim.findOption("--datacenters")));
    assertTrue(described(sim.findOption("--seeds")).contains("(default: 1..20)"), described(sim.findOption("--seeds")));
  }

  private static void walk(CommandLine cmd, List<String> missing) {
    CommandSpec spec = cmd.getCommandSpec();
    for (ArgSpec arg : spec.args()) {
      String text = described(arg).strip();
      if (text.isEmpty() || text.endsWith(":")) {
        missing.add(spec.qualifiedName() + " " + (arg.isOption() ? ((CommandLine.Model.OptionSpec) arg).longestName()
            : arg.paramLabel()) + ": '" + text + "'");
      }
    }
    cmd.getSubcommands().values().forEach(sub -> walk(sub, missing));
  }

  /** The description as --help prints it: its lines, ${DEFAULT-VALUE} and ${COMPLETION-CANDIDATES} filled in. */
  private static String described(ArgSpec arg) {
    String text = String.join(" ", arg.description());
    List<String> candidates = new ArrayList<>();
    if (arg.completionCandidates() != null) {
      arg.completionCandidates().forEach(candidates::add);
    }
    return text.replace("${COMPLETION-CANDIDATES}", String.join(", ", candidates))
        .replace("${DEFAULT-VALUE}", String.valueOf(arg.defaultValueString()));
  }
}
