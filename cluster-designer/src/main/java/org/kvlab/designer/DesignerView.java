package org.kvlab.designer;

import javafx.scene.Node;

/** One tab of the main window (design, deploy, benchmark, simulate). */
public interface DesignerView {
  /** The tab's title. */
  String title();

  /** The tab's content, built once. */
  Node node();

  /** Called when the workspace's cluster file was opened or replaced; views reload what depends on it. */
  default void fileOpened(java.nio.file.Path file) {}

  /** Stops what the view started (clusters, benchmarks, simulations); called when the window closes. */
  default void close() {}
}
