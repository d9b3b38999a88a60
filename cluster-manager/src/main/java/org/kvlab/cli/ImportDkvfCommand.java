package org.kvlab.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvlab.dkvf.DkvfImport;
import org.kvlab.dkvf.DkvfImportException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "import-dkvf", mixinStandardHelpOptions = true,
    description = "Convert a DKVF cluster descriptor (<cluster>) into a kvlab cluster file, or a DKVF experiment"
        + " descriptor (<experiment>) into a kvlab experiment file (docs/import-dkvf.md).")
final class ImportDkvfCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE", description = "the DKVF XML descriptor")
  Path file;

  @Option(names = "--out", paramLabel = "DIR", description = "directory for the YAML (default: the current directory)")
  Path out = Path.of(".");

  @Override
  public Integer call() {
    try {
      DkvfImport.Result r = DkvfImport.convert(file, out);
      System.out.println("wrote " + r.kind() + " file " + r.output());
      if (!r.notes().isEmpty()) {
        System.out.println("not carried over (also listed at the top of the file):");
        r.notes().forEach(n -> System.out.println("  - " + n));
      }
      System.out.println(r.kind().equals("cluster") ? "next: ./kvlab local up " + r.output()
          : "next: ./kvlab bench " + r.output());
      return Main.OK;
    } catch (DkvfImportException e) {
      System.err.println("kvlab import-dkvf: " + e.getMessage());
      return Main.USAGE;
    }
  }
}
