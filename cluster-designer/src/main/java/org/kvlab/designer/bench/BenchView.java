package org.kvlab.designer.bench;

import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;

/** The "Benchmark" tab. */
public final class BenchView implements DesignerView {
  private final Label node = new Label("Benchmark: being built");

  public BenchView(Workspace workspace, Stage stage) {}

  @Override
  public String title() {
    return "Benchmark";
  }

  @Override
  public Node node() {
    return node;
  }
}
