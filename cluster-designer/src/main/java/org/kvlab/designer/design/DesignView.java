package org.kvlab.designer.design;

import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;

/** The "Design" tab. */
public final class DesignView implements DesignerView {
  private final Label node = new Label("Design: being built");

  public DesignView(Workspace workspace, Stage stage) {}

  @Override
  public String title() {
    return "Design";
  }

  @Override
  public Node node() {
    return node;
  }
}
