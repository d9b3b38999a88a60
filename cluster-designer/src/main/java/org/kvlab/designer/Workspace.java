package org.kvlab.designer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * What the views of one designer window share: the checkout (the working directory kvlab runs in), the
 * cluster and experiment files being edited, one log every view appends to, and a background executor so
 * that nothing slow (deploys, benchmarks, simulations) runs on the JavaFX thread.
 */
public final class Workspace implements AutoCloseable {
  private final Path home;
  private final ObjectProperty<Path> clusterFile = new SimpleObjectProperty<>();
  private final ObjectProperty<Path> experimentFile = new SimpleObjectProperty<>();
  private final ObjectProperty<Deployed> deployed = new SimpleObjectProperty<>();
  private final ObservableList<String> keptInstances = FXCollections.observableArrayList();
  private final ObservableList<String> log = FXCollections.observableArrayList();
  private final ExecutorService background = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "designer-background");
    t.setDaemon(true);
    return t;
  });
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private volatile Consumer<String> documentOpener;
  private volatile DesignParams designParams;

  /** The design open in the Design tab, as other tabs may change it: its protocol, partitions and parameters. */
  public interface DesignParams {
    /** The design's protocol name (blank if none chosen). */
    String protocol();

    /** Partitions per datacenter in the design. */
    int partitions();

    /** Sets parameter {@code name} to {@code value} in the design, as one undo step there (not saved to disk). */
    void set(String name, String value);
  }

  public Workspace(Path home) {
    this.home = home;
  }

  /** The directory relative paths are resolved in (where {@code ./kvlab} keeps {@code .kvlab/}). */
  public Path home() {
    return home;
  }

  /** The cluster file being edited (null for a new design not saved yet). */
  public ObjectProperty<Path> clusterFile() {
    return clusterFile;
  }

  /** The experiment file picked in the benchmark view (null if none). */
  public ObjectProperty<Path> experimentFile() {
    return experimentFile;
  }

  /**
   * A cluster the Deploy tab started and that is running: the backend it runs on (its clients can run there too)
   * and the cluster as placed on it.
   */
  public record Deployed(org.kvlab.cluster.ClusterBackend backend, org.kvlab.cluster.ClusterRef cluster) {}

  /** The cluster the Deploy tab has running (null if none); set and cleared on the JavaFX thread. */
  public ObjectProperty<Deployed> deployed() {
    return deployed;
  }

  /**
   * EC2 instances a tab left running on purpose ("keep the instances"), one line each with the cluster and the
   * instances' expiry; the Deploy tab lists them. Changed on the JavaFX thread.
   */
  public ObservableList<String> keptInstances() {
    return keptInstances;
  }

  /** The shared log, newest last; append from any thread with {@link #log(String)}. */
  public ObservableList<String> logLines() {
    return log;
  }

  /** Appends a line to the shared log (safe from any thread). */
  public void log(String line) {
    if (Platform.isFxApplicationThread()) {
      log.add(line);
    } else {
      Platform.runLater(() -> log.add(line));
    }
  }

  /** A log callback for library listeners. */
  public Consumer<String> logger() {
    return this::log;
  }

  /** How to open a document (a report's file: URI) in the desktop's browser; set by {@link DesignerApp}. */
  public void documentOpener(Consumer<String> opener) {
    documentOpener = opener;
  }

  /** Opens {@code uri} in the desktop's browser; false when there is no way to (no opener set). */
  public boolean showDocument(String uri) {
    Consumer<String> o = documentOpener;
    if (o == null) {
      return false;
    }
    o.accept(uri);
    return true;
  }

  /** Registers the Design tab's design (set by {@code DesignView}). */
  public void designParams(DesignParams params) {
    designParams = params;
  }

  /** The Design tab's design, or null when no Design tab exists. */
  public DesignParams designParams() {
    return designParams;
  }

  /** Runs slow work off the JavaFX thread. */
  public ExecutorService background() {
    return background;
  }

  /** Something to close with the window (a backend, a running cluster). */
  public synchronized void closeOnExit(AutoCloseable c) {
    closeables.add(c);
  }

  @Override
  public synchronized void close() {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        log("closing " + c + ": " + e.getMessage());
      }
    }
    closeables.clear();
    background.shutdownNow();
    try {
      background.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
