package org.kvlab.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.kvlab.partitioning.operations.ClassificationTable;
import org.kvlab.partitioning.operations.OperationPartitioning;
import org.kvlab.partitioning.operations.OperationType;
import org.kvlab.partitioning.operations.OperationsFile;
import org.kvlab.partitioning.operations.SoundnessCheck;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvlab classify}: seed 004's operation partitioning (Alg. 1) of an application's transaction types. */
@Command(name = "classify", mixinStandardHelpOptions = true,
    description = "Classify an application's transaction types (declared with key templates in a YAML file) by"
        + " seed 004's operation partitioning: choose each type's partitioning parameter (Alg. 1) and print, as the"
        + " seed's Table 1, which types are commutative (C), local (L) or global (G); then check the classification"
        + " on sampled operations (docs/partitioning.md#operation-partitioning). Exit code 1 if the check finds a"
        + " conflict the classification misses.")
final class ClassifyCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the transaction types, e.g. examples/operations/online-store.yaml")
  Path file;

  @Option(names = "--servers", defaultValue = "3", description = "servers the sampled check routes to (default:"
      + " ${DEFAULT-VALUE})")
  int servers;

  @Option(names = "--samples", defaultValue = "500", description = "sampled operations, every pair compared"
      + " (default: ${DEFAULT-VALUE})")
  int samples;

  @Override
  public Integer call() {
    if (servers < 2 || servers > 1000) {
      throw new Main.CliException(Main.USAGE, "--servers " + servers + ": out of range. Fix: give 2 to 1000");
    }
    if (samples < 2 || samples > 5000) {
      throw new Main.CliException(Main.USAGE, "--samples " + samples + ": out of range. Fix: give 2 to 5000");
    }
    if (!Files.isRegularFile(file)) {
      throw new Main.CliException(Main.USAGE, "file " + file + " does not exist. Fix: check the path; an example is"
          + " examples/operations/online-store.yaml");
    }
    List<OperationType> types;
    OperationPartitioning.Result r;
    try {
      types = OperationsFile.read(file);
      r = OperationPartitioning.classify(types);
    } catch (IOException | IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "cannot classify " + file + ": " + e.getMessage());
    }
    System.out.print(ClassificationTable.render(r));
    List<String> violations = SoundnessCheck.check(r, servers, samples, 5, 1);
    if (violations.isEmpty()) {
      System.out.printf("sampled check: %d operations on %d servers, no conflict between local operations at"
          + " different servers or with a commutative one%n", samples, servers);
      return Main.OK;
    }
    System.out.printf("sampled check: %d conflicts the classification misses, e.g. %s%n", violations.size(),
        violations.get(0));
    return Main.FAILED;
  }
}
