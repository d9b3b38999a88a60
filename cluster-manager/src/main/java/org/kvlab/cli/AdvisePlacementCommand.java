package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.kvlab.api.Topology;
import org.kvlab.partitioning.Partitioner;
import org.kvlab.partitioning.Partitioners;
import org.kvlab.partitioning.PlacementAdvice;
import org.kvlab.placement.Traces;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvlab advise-placement}: the placement advisor — where should a trace's keys live? */
@Command(name = "advise-placement", mixinStandardHelpOptions = true,
    description = "Advise a placement of keys from a trace: build the workload graph (keys that transactions touch"
        + " together), partition it with METIS (or the pure-Java partitioner) and compare with kvlab's hash placement:"
        + " share of multi-partition transactions, edge cut, load imbalance (docs/partitioning.md). The trace is a"
        + " kvlab history (JSON lines: TXN, GET and PUT operations) or plain text, one transaction's keys per line.")
final class AdvisePlacementCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the trace: a kvlab history file or one transaction's keys per line")
  Path file;

  @Option(names = "--parts", required = true, description = "number of partitions")
  int parts;

  @Option(names = "--partitioner", defaultValue = "auto", description = "auto (METIS where gpmetis runs, else greedy),"
      + " metis or greedy (default: ${DEFAULT-VALUE})")
  String partitioner;

  @Option(names = "--imbalance", defaultValue = "1.2", description = "largest load of a partition over the mean"
      + " (default: ${DEFAULT-VALUE}, METIS's 20% as in DynaStar)")
  double imbalance;

  @Option(names = "--seed", defaultValue = "1", description = "seed of the partitioner (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--output", description = "write the proposed placement there, key<TAB>partition per line")
  Path output;

  @Override
  public Integer call() {
    if (parts < 1 || parts > 4096) {
      throw new Main.CliException(Main.USAGE, "--parts " + parts + ": out of range. Fix: give 1 to 4096");
    }
    if (!(imbalance >= 1.0) || imbalance > 10) {
      throw new Main.CliException(Main.USAGE, "--imbalance " + imbalance + ": out of range. Fix: give 1.0 (perfect"
          + " balance) to 10; 1.2 is METIS's usual 20%");
    }
    Partitioner p;
    try {
      p = Partitioners.byName(partitioner);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--partitioner: " + e.getMessage());
    }
    if (!Files.isRegularFile(file)) {
      throw new Main.CliException(Main.USAGE, "trace file " + file + " does not exist. Fix: check the path, or record"
          + " a history (YCSB's kvlab.history=FILE, ./kvlab shell --history FILE)");
    }
    List<List<String>> trace;
    try {
      trace = Traces.read(file);
    } catch (IOException | RuntimeException e) {
      throw new Main.CliException(Main.USAGE, "cannot read the trace " + file + ": " + e.getMessage());
    }
    Topology hashed = new Topology(1, parts);
    PlacementAdvice a;
    try {
      a = PlacementAdvice.advise(trace, parts, p, imbalance, seed, hashed::partitionOf);
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, e.getMessage());
    } catch (IllegalStateException e) {
      throw new Main.CliException(Main.FAILED, e.getMessage());
    }
    System.out.printf("%s: %d transactions over %d keys, %d pairs touched together; %d partitions%n", file,
        a.transactions(), a.graph().vertices(), a.graph().edges(), parts);
    System.out.printf("%-22s %16s %12s %10s%n", "placement", "multi-partition", "edge cut", "imbalance");
    row("hash (kvlab's default)", a.baseline());
    row(a.partitioner() + " (" + a.millis() + " ms)", a.proposed());
    if (output != null) {
      try {
        a.writeMap(output);
      } catch (IOException e) {
        throw new Main.CliException(Main.FAILED, "cannot write " + output + ": " + e.getMessage());
      }
      System.out.println("placement written to " + output + " (key<TAB>partition)");
    }
    return Main.OK;
  }

  private static void row(String name, PlacementAdvice.Measures m) {
    System.out.printf("%-22s %15.1f%% %12d %10.2f%n", name, 100 * m.multiPartitionShare(), m.edgeCut(), m.imbalance());
  }
}
