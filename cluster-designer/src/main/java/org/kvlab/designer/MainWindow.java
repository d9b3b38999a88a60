package org.kvlab.designer;

import java.nio.file.Path;
import java.util.List;
import javafx.scene.Parent;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.stage.Stage;
import org.kvlab.designer.bench.BenchView;
import org.kvlab.designer.deploy.DeployView;
import org.kvlab.designer.design.DesignView;
import org.kvlab.designer.placement.PlacementView;
import org.kvlab.designer.sim.SimView;

/** The main window: one tab per stage of an experiment's life (design, deploy, benchmark, simulate) and the placement advisor. */
public final class MainWindow {
  private final Workspace workspace;
  private final BorderPane root = new BorderPane();
  private final TabPane tabs = new TabPane();
  private final List<DesignerView> views;

  public MainWindow(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    views = List.of(new DesignView(workspace, stage), new DeployView(workspace, stage),
        new BenchView(workspace, stage), new SimView(workspace, stage), new PlacementView(workspace, stage),
        new org.kvlab.designer.sim.BranchView(stage));
    for (DesignerView v : views) {
      Tab tab = new Tab(v.title(), v.node());
      tab.setClosable(false);
      tab.setId("tab-" + v.title().toLowerCase());
      tabs.getTabs().add(tab);
    }
    root.setCenter(tabs);
    workspace.clusterFile().addListener((obs, old, file) -> {
      if (file != null) {
        views.forEach(v -> v.fileOpened(file));
      }
    });
    workspace.closeOnExit(() -> views.forEach(DesignerView::close));
  }

  public Parent root() {
    return root;
  }

  public TabPane tabs() {
    return tabs;
  }

  /** Opens a schedule ({@code kvlab explore}'s) in the Branch tab and shows it. */
  public void openSchedule(java.nio.file.Path file) {
    for (int i = 0; i < views.size(); i++) {
      if (views.get(i) instanceof org.kvlab.designer.sim.BranchView b) {
        b.open(file);
        tabs.getSelectionModel().select(i);
      }
    }
  }

  public List<DesignerView> views() {
    return views;
  }

  /** Opens a cluster file in every view (the file's directory becomes the place relative paths resolve in). */
  public void open(Path file) {
    workspace.clusterFile().set(file);
  }
}
