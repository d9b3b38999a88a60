package org.kvlab.designer.sim;

import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;

/** The "Simulate" tab. */
public final class SimView implements DesignerView {
  private final Label node = new Label("Simulate: being built");

  public SimView(Workspace workspace, Stage stage) {}

  @Override
  public String title() {
    return "Simulate";
  }

  @Override
  public Node node() {
    return node;
  }
}
