package org.kvlab.designer;

import java.nio.file.Path;
import java.util.List;
import javafx.application.Application;
import javafx.scene.Scene;
import javafx.stage.Stage;

/** The designer's JavaFX application: one {@link MainWindow} over one {@link Workspace}. */
public final class DesignerApp extends Application {
  private Workspace workspace;

  @Override
  public void start(Stage stage) {
    List<String> args = getParameters().getRaw();
    workspace = new Workspace(Path.of("").toAbsolutePath());
    workspace.documentOpener(getHostServices()::showDocument);
    stage.setTitle("kvlab designer"); // the Design tab then names the design in it (and marks unsaved changes)
    MainWindow window = new MainWindow(workspace, stage);
    stage.setScene(new Scene(window.root(), 1400, 900));
    stage.show();
    if (args.size() == 2 && args.get(0).equals("--schedule")) {
      window.openSchedule(Path.of(args.get(1)).toAbsolutePath());
    } else if (!args.isEmpty()) {
      window.open(Path.of(args.get(0)).toAbsolutePath());
    }
  }

  @Override
  public void stop() {
    if (workspace != null) {
      workspace.close();
    }
  }
}
