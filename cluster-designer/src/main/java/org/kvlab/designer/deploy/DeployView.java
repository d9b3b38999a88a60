package org.kvlab.designer.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Error;
import org.kvlab.cluster.ec2.Ec2Plan;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.local.LocalBackend;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.designer.DesignerView;
import org.kvlab.designer.Workspace;
import org.kvlab.experiment.ClusterFiles;

/**
 * The "Deploy" tab: deploys the workspace's cluster file through the cluster-manager library on the backend the
 * user picks (this machine, SSH hosts of a hosts file, or EC2 instances it creates), shows the backend's events in
 * a log, every server's state in a table polled live (up/down, peers connected, RTT, load), and stops exactly
 * what it started. For EC2 it shows the cost estimate and asks before anything is created, and lists what the
 * teardown removed. Nothing here blocks the JavaFX thread: backend calls run on the deployment's worker.
 */
public final class DeployView implements DesignerView {
  static final String LOCAL = BackendChoice.LOCAL;
  static final String SSH = BackendChoice.SSH;
  static final String EC2 = BackendChoice.EC2;
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final int LOG_LINES_MAX = 5000;
  /** How long closing the window waits for a stop (EC2: also for the instances to be deleted). */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
  private static final Duration CLOSE_WAIT_EC2 = Duration.ofMinutes(15);

  private final Workspace workspace;
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final Label fileLabel = new Label();
  private final Label fileState = new Label();
  private final BackendChoice choice;
  private final Button deployButton = new Button("Deploy");
  private final Button stopButton = new Button("Stop");
  private final Label phaseLabel = new Label("not deployed");
  private final Label message = new Label();
  private final Label progress = new Label();
  private final TableView<NodeRow> table = new TableView<>();
  private final ObservableList<NodeRow> rows = FXCollections.observableArrayList();
  private final ListView<String> log = new ListView<>();
  private final ObservableList<String> logLines = FXCollections.observableArrayList();
  private final ObservableList<String> lastTeardown = FXCollections.observableArrayList();
  private Deployment current;
  private boolean preparing;
  private Dialog<ButtonType> confirmation;

  public DeployView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    this.stage = stage;
    this.choice = new BackendChoice(workspace, stage, "", "Servers run as child processes of the designer, on loopback.",
        "Instances, key pair and security groups come from the file's ec2: section (docs/ec2.md); you see the cost"
            + " and confirm before anything is created.", false);
    build();
    workspace.clusterFile().addListener((obs, old, file) -> checkFile(file));
    checkFile(workspace.clusterFile().get());
  }

  @Override
  public String title() {
    return "Deploy";
  }

  @Override
  public Node node() {
    return root;
  }

  @Override
  public void fileOpened(Path file) {
    // the workspace's clusterFile listener (above) does the work, also for a file closed (null)
  }

  /** Stops what this tab started; waits for it (EC2: until the instances are deleted), then kills what is left. */
  @Override
  public void close() {
    Deployment d;
    synchronized (this) {
      d = current;
    }
    if (d != null) {
      d.close(EC2.equals(d.backendName()) ? CLOSE_WAIT_EC2 : CLOSE_WAIT);
    }
  }

  /** For tests: how EC2 instances are reached and the EC2 backend's options. */
  void ec2Hooks(BackendChoice.Ec2Hooks hooks) {
    choice.ec2Hooks(hooks);
  }

  /** The deployment running or last run (tests). */
  synchronized Deployment current() {
    return current;
  }

  /** The resources the last EC2 teardown removed. */
  ObservableList<String> lastTeardown() {
    return lastTeardown;
  }

  // ---------------------------------------------------------------------------------------------
  // layout

  private void build() {
    fileLabel.setId("deploy-file");
    fileState.setId("deploy-file-state");
    fileState.setWrapText(true);
    HBox fileRow = row(bold("Cluster file"), fileLabel);
    VBox fileBox = new VBox(2, fileRow, fileState);

    HBox backendRow = (HBox) choice.selector();
    Node options = choice.options();
    choice.onChange(t -> message.setText(""));

    deployButton.setId("deploy-button");
    deployButton.setDefaultButton(false);
    deployButton.setOnAction(e -> deploy());
    stopButton.setId("stop-button");
    stopButton.setOnAction(e -> stop());
    stopButton.setDisable(true);
    phaseLabel.setId("deploy-phase");
    phaseLabel.setStyle("-fx-font-weight: bold;");
    HBox actions = row(deployButton, stopButton, phaseLabel);

    message.setId("deploy-message");
    message.setWrapText(true);
    message.setStyle("-fx-text-fill: #b00020;");
    message.setMaxWidth(Double.MAX_VALUE);
    message.setMinHeight(18); // the line stays when empty: the buttons above do not move under the pointer

    Label kept = new Label();
    kept.setId("deploy-kept");
    kept.setWrapText(true);
    kept.setStyle("-fx-text-fill: #a06000;");
    Runnable showKept = () -> {
      kept.setText(workspace.keptInstances().isEmpty() ? "" : "Kept EC2 instances (they cost money until their expiry;"
          + " kvlab ec2 down FILE deletes them earlier):\n" + String.join("\n", workspace.keptInstances()));
      kept.setManaged(!workspace.keptInstances().isEmpty());
      kept.setVisible(!workspace.keptInstances().isEmpty());
    };
    workspace.keptInstances().addListener((javafx.collections.ListChangeListener<String>) ch -> showKept.run());
    showKept.run();
    VBox top = new VBox(8, fileBox, backendRow, options, actions, message, kept);
    top.setPadding(new Insets(10));

    buildTable();
    log.setId("deploy-log");
    log.setItems(logLines);
    VBox logBox = new VBox(4, bold("Log"), log);
    VBox.setVgrow(log, Priority.ALWAYS);
    VBox tableBox = new VBox(4, bold("Servers (refreshed every second)"), table);
    VBox.setVgrow(table, Priority.ALWAYS);
    SplitPane split = new SplitPane(tableBox, logBox);
    split.setOrientation(Orientation.VERTICAL);
    split.setDividerPositions(0.55);
    split.setPadding(new Insets(0, 10, 0, 10));

    progress.setId("deploy-progress");
    progress.setPadding(new Insets(4, 10, 6, 10));
    progress.setMaxWidth(Double.MAX_VALUE);

    root.setTop(top);
    root.setCenter(split);
    root.setBottom(progress);
  }

  private void buildTable() {
    table.setId("node-table");
    table.setItems(rows);
    table.setPlaceholder(new Label("No cluster deployed from here yet."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.getColumns().add(column("Node", 70, NodeRow::node));
    TableColumn<NodeRow, Integer> dc = new TableColumn<>("Datacenter");
    dc.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(c.getValue().datacenter()));
    dc.setPrefWidth(90);
    table.getColumns().add(dc);
    table.getColumns().add(column("Address", 150, NodeRow::address));
    TableColumn<NodeRow, String> state = column("State", 90, NodeRow::state);
    state.setCellFactory(c -> new TableCell<>() {
      @Override
      protected void updateItem(String item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty ? null : item);
        setStyle(empty || item == null ? "" : switch (item) {
          case NodeRow.UP -> "-fx-text-fill: #1b7f2a; -fx-font-weight: bold;";
          case NodeRow.DOWN, NodeRow.REFUSED -> "-fx-text-fill: #b00020; -fx-font-weight: bold;";
          default -> "-fx-text-fill: #a06000;";
        });
        NodeRow row = empty || getTableRow() == null ? null : getTableRow().getItem();
        setTooltip(row != null && !row.problem().isEmpty() ? new Tooltip(row.problem()) : null);
      }
    });
    table.getColumns().add(state);
    table.getColumns().add(column("Peers", 70, NodeRow::peers));
    table.getColumns().add(column("RTT to peers", 110, NodeRow::rtt));
    table.getColumns().add(column("Load", 150, NodeRow::load));
    table.getColumns().add(column("PID", 80, r -> r.pid() == 0 ? "-" : Long.toString(r.pid())));
    table.getColumns().add(column("Problem", 200, NodeRow::problem));
  }

  private static TableColumn<NodeRow, String> column(String title, double width, Function<NodeRow, String> value) {
    TableColumn<NodeRow, String> c = new TableColumn<>(title);
    c.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
    c.setPrefWidth(width);
    return c;
  }

  private static HBox row(Node... nodes) {
    return BackendChoice.row(nodes);
  }

  private static Label bold(String text) {
    return BackendChoice.bold(text);
  }

  // ---------------------------------------------------------------------------------------------
  // the cluster file

  private void checkFile(Path file) {
    if (file == null) {
      fileLabel.setText("none");
      fileState.setText("No cluster file. Fix: save the design first (Design tab, Save), then deploy it here.");
      fileState.setStyle("-fx-text-fill: #b00020;");
      updateButtons();
      return;
    }
    fileLabel.setText(file.toString());
    fileState.setText("checking...");
    fileState.setStyle("");
    updateButtons();
    workspace.background().execute(() -> {
      String text;
      boolean ok;
      try {
        ClusterConfig c = load(file);
        text = c.protocol() + ", " + c.topology().datacenters() + " datacenter(s) x " + c.topology().partitions()
            + " partition(s): " + c.servers().size() + " servers, " + c.storage().engine().name().toLowerCase()
            + " storage" + (c.emulation().rttMillis() != null ? ", emulated WAN" : "");
        ok = true;
      } catch (ConfigException e) {
        text = e.getMessage();
        ok = false;
      }
      String shown = text;
      boolean valid = ok;
      Platform.runLater(() -> {
        if (file.equals(workspace.clusterFile().get())) {
          fileState.setText(shown);
          fileState.setStyle(valid ? "-fx-text-fill: #404040;" : "-fx-text-fill: #b00020;");
        }
      });
    });
  }

  /** Loads the cluster file; a missing one gets its own message (cause and fix). */
  static ClusterConfig load(Path file) throws ConfigException {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(file.toString(), 0, 0, "the cluster file does not exist",
          "save the design again (Design tab), or open an existing cluster file");
    }
    return ClusterConfig.load(file);
  }

  // ---------------------------------------------------------------------------------------------
  // deploy and stop

  private void deploy() {
    message.setText("");
    Path file = workspace.clusterFile().get();
    if (file == null) {
      message.setText("Nothing to deploy: no cluster file. Fix: save the design first (Design tab), then click Deploy.");
      return;
    }
    BackendChoice.Choice c = choice.choice();
    String backend = c.backend();
    preparing = true;
    updateButtons();
    phaseLabel.setText("checking " + file.getFileName());
    workspace.background().execute(() -> {
      try {
        ClusterConfig config = load(file);
        switch (backend) {
          case LOCAL -> onFx(() -> launch(LOCAL, config.name(), localPlan(file, config, c.singleJvm())));
          case SSH -> {
            SshHosts h = choice.sshHosts(c);
            onFx(() -> launch(SSH, config.name(), sshPlan(config, h)));
          }
          default -> prepareEc2(file, config, c);
        }
      } catch (ConfigException | IllegalArgumentException | Ec2Error e) {
        onFx(() -> refuse(Deployment.message(e)));
      } catch (RuntimeException | Error e) {
        onFx(() -> refuse("cannot deploy: " + e));
      }
    });
  }

  /** Nothing was started: the reason (cause and fix) in the tab. */
  private void refuse(String why) {
    preparing = false;
    message.setText(why);
    log("not deployed: " + why);
    phaseLabel.setText("not deployed"); // (Deploy is disabled while a deployment of this tab is active)
    updateButtons();
  }

  private Deployment.Plan localPlan(Path file, ClusterConfig config, boolean oneJvm) {
    return new Deployment.Plan() {
      @Override
      public ClusterBackend create(ClusterListener listener) {
        return new LocalBackend(null, listener);
      }

      @Override
      public ClusterRef place(ClusterBackend backend) {
        return new ClusterRef(file.toAbsolutePath(), config);
      }

      @Override
      public boolean singleJvm() {
        return oneJvm;
      }
    };
  }

  private Deployment.Plan sshPlan(ClusterConfig config, SshHosts hosts) {
    return new Deployment.Plan() {
      @Override
      public ClusterBackend create(ClusterListener listener) throws IOException {
        return new SshBackend(hosts, choice.distribution(), listener);
      }

      @Override
      public ClusterRef place(ClusterBackend backend) throws Exception {
        return placed(backend, config);
      }
    };
  }

  /** The cluster on the backend's hosts, written to {@code .kvlab/designer/<cluster>/cluster.yaml} for upload. */
  private ClusterRef placed(ClusterBackend backend, ClusterConfig config) throws Exception {
    Path dir = workspace.home().resolve(".kvlab").resolve("designer").resolve(config.name());
    ClusterConfig placed = backend.place(config, dir.resolve("data"));
    Files.createDirectories(dir);
    Path file = dir.resolve("cluster.yaml");
    Files.writeString(file, ClusterFiles.toYaml(placed));
    return new ClusterRef(file, placed);
  }

  /** Starts a deployment (FX thread). */
  private void launch(String backend, String cluster, Deployment.Plan plan) {
    Deployment d = new Deployment(backend, cluster, new FxUi());
    synchronized (this) {
      current = d;
    }
    preparing = false;
    rows.clear();
    phaseLabel.setText("deploying on " + backend);
    updateButtons();
    log("deploying " + workspace.clusterFile().get() + " on " + backend);
    d.start(plan);
  }

  // EC2: the estimate and the confirmation come before anything is created

  private void prepareEc2(Path file, ClusterConfig config, BackendChoice.Choice c) throws ConfigException {
    Ec2Spec spec = Ec2Spec.load(file, config);
    int basePort = config.servers().stream().mapToInt(ClusterConfig.ServerSpec::port).min()
        .orElse(SshHosts.DEFAULT_BASE_PORT);
    Deployment d = new Deployment(EC2, config.name(), new FxUi());
    BackendChoice.Ec2Setup setup = choice.ec2(config, spec, c, basePort, d.listener());
    onFx(() -> confirmEc2(d, setup, new Deployment.Plan() {
      @Override
      public ClusterBackend create(ClusterListener listener) throws IOException {
        return setup.backend(choice.distribution(), listener);
      }

      @Override
      public void provision(ClusterBackend backend) throws Exception {
        ((Ec2Backend) backend).up(config, spec, setup.caller(), setup.mapper());
      }

      @Override
      public ClusterRef place(ClusterBackend backend) throws Exception {
        return placed(backend, config);
      }
    }));
  }

  private void confirmEc2(Deployment d, BackendChoice.Ec2Setup setup, Deployment.Plan deployPlan) {
    Ec2Plan plan = setup.plan();
    phaseLabel.setText("waiting for your confirmation (nothing created yet)");
    confirmation = choice.confirm(plan, "cluster " + plan.cluster(), create -> {
      confirmation = null;
      if (create) {
        synchronized (this) {
          current = d;
        }
        preparing = false;
        rows.clear();
        phaseLabel.setText("creating EC2 instances");
        updateButtons();
        log("confirmed: " + plan.cost());
        d.start(deployPlan);
      } else {
        setup.clients().close();
        preparing = false;
        phaseLabel.setText("not deployed");
        message.setText("");
        log("EC2 deploy cancelled: nothing was created");
        progress.setText("EC2 deploy cancelled: nothing was created");
        updateButtons();
      }
    });
  }

  /** The confirmation dialog while it is open (tests, screenshots). */
  Dialog<ButtonType> confirmation() {
    return confirmation;
  }

  private void stop() {
    Deployment d;
    synchronized (this) {
      d = current;
    }
    if (d != null) {
      d.stop();
      updateButtons();
    }
  }

  private void updateButtons() {
    Deployment d = current;
    boolean active = d != null && !d.finished();
    deployButton.setDisable(preparing || active || workspace.clusterFile().get() == null);
    stopButton.setDisable(!active || d.phase() == Deployment.Phase.STOPPING);
  }

  private void log(String line) {
    String stamped = LocalTime.now().format(CLOCK) + "  " + line;
    logLines.add(stamped);
    if (logLines.size() > LOG_LINES_MAX) {
      logLines.remove(0, logLines.size() - LOG_LINES_MAX);
    }
    log.scrollTo(logLines.size() - 1);
    workspace.log("deploy: " + line);
  }

  private static void onFx(Runnable r) {
    if (Platform.isFxApplicationThread()) {
      r.run();
    } else {
      Platform.runLater(r);
    }
  }

  /** The deployment's reports, on the FX thread; those of a deployment replaced since are only logged. */
  private final class FxUi implements Deployment.Ui {
    @Override
    public void phase(Deployment d, Deployment.Phase phase, String text) {
      onFx(() -> {
        if (d == current) {
          Workspace.Deployed running = workspace.deployed().get();
          if (phase == Deployment.Phase.RUNNING && d.cluster() != null) {
            workspace.deployed().set(new Workspace.Deployed(d.backend(), d.cluster()));
          } else if (phase != Deployment.Phase.RUNNING && running != null && running.backend() == d.backend()) {
            workspace.deployed().set(null); // stopping: the Benchmark tab cannot use it any more
          }
          phaseLabel.setText(switch (phase) {
            case RUNNING -> describeRunning(d);
            default -> text;
          });
          updateButtons();
        }
        if (phase != Deployment.Phase.DEPLOYING) {
          log(text);
        }
      });
    }

    @Override
    public void nodes(Deployment d, List<NodeRow> list) {
      onFx(() -> {
        if (d == current) {
          rows.setAll(list);
          if (d.phase() == Deployment.Phase.RUNNING) {
            phaseLabel.setText(describeRunning(d));
          }
        }
      });
    }

    @Override
    public void failed(Deployment d, String why) {
      String said = forThisTab(why);
      onFx(() -> {
        if (d == current) {
          message.setText(said);
        }
        log("FAILED: " + said);
      });
    }

    @Override
    public void log(String line) {
      onFx(() -> DeployView.this.log(line));
    }

    @Override
    public void progress(String line) {
      onFx(() -> progress.setText(line));
    }

    @Override
    public void teardown(Deployment d, String cluster, List<String> removed) {
      onFx(() -> showTeardown(cluster, removed));
    }
  }

  /**
   * A backend's message as the tab says it: the library's fixes name the CLI's flags, whose counterparts here are
   * the tab's controls.
   */
  static String forThisTab(String message) {
    return message
        .replace("or run once with --accept-new-host-keys to record them",
            "or tick 'accept and record new host keys' and deploy again to record them")
        .replace("or run with --accept-new-host-keys to record new hosts' keys",
            "or tick 'accept and record new host keys' and deploy again to record new hosts' keys");
  }

  private String describeRunning(Deployment d) {
    long up = rows.stream().filter(r -> r.state().equals(NodeRow.UP)).count();
    ClusterRef r = d.cluster();
    return "running on " + d.backendName() + (r == null ? "" : ": " + r.config().name() + ", " + up + "/"
        + r.config().servers().size() + " servers up");
  }

  private void showTeardown(String cluster, List<String> removed) {
    lastTeardown.setAll(removed);
    log("EC2 teardown of " + cluster + ": removed " + removed.size() + " resource(s)");
    removed.forEach(r -> log("  removed " + r));
    choice.showTeardown(cluster, removed);
  }
}
