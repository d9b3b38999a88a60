package org.kvlab.designer.deploy;

import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;

/** The "Deploy" tab. */
public final class DeployView implements DesignerView {
  private final Label node = new Label("Deploy: being built");

  public DeployView(Workspace workspace, Stage stage) {}

  @Override
  public String title() {
    return "Deploy";
  }

  @Override
  public Node node() {
    return node;
  }
}
