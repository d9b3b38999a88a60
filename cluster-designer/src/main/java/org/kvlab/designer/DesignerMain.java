package org.kvlab.designer;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.application.Application;

/**
 * Starts the designer: {@code ./kvlab designer [cluster.yaml]}. A plain main class (not the
 * {@link Application} subclass) so that JavaFX on the class path starts without a module path.
 */
public final class DesignerMain {
  private DesignerMain() {}

  public static void main(String[] args) {
    if (args.length == 2 && args[0].equals("--schedule")) {
      if (!Files.isRegularFile(Path.of(args[1]))) {
        System.err.println("kvlab designer: " + args[1] + " is not a file. Fix: give the schedule file ./kvlab explore"
            + " wrote");
        System.exit(2);
      }
    } else if (args.length > 1 || (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help")))) {
      System.err.println("Usage: kvlab designer [cluster.yaml | --schedule FILE]\n"
          + "Opens the cluster designer (docs/designer.md), with the given cluster file if any, or a schedule of"
          + " ./kvlab explore in its Branch tab.");
      System.exit(args.length > 1 ? 2 : 0);
    }
    if (args.length == 1 && !Files.isRegularFile(Path.of(args[0]))) {
      System.err.println("kvlab designer: " + args[0] + " is not a file. Fix: give an existing cluster file, "
          + "or none to start a new design.");
      System.exit(2);
    }
    String display = System.getenv("DISPLAY");
    if ((display == null || display.isBlank()) && !"Monocle".equals(System.getProperty("glass.platform"))) {
      System.err.println("kvlab designer: no display (DISPLAY is not set). Fix: run it in a desktop session, "
          + "over `ssh -X`, or on a virtual display: eval \"$(scripts/test-env/display start)\" && ./kvlab designer");
      System.exit(2);
    }
    Application.launch(DesignerApp.class, args);
  }
}
