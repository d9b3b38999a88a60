package org.kvlab.designer.deploy;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Dialog;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.RadioButton;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Modality;
import javafx.stage.Stage;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.ec2.AddressMapper;
import org.kvlab.cluster.ec2.CallerAddress;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Error;
import org.kvlab.cluster.ec2.Ec2Plan;
import org.kvlab.cluster.ec2.Ec2Provisioner;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ec2.PriceTable;
import org.kvlab.cluster.local.LocalBackend;
import org.kvlab.cluster.ssh.Distribution;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.cluster.ssh.SshSettings;
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
  static final String LOCAL = "local";
  static final String SSH = "ssh";
  static final String EC2 = "ec2";
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final int LOG_LINES_MAX = 5000;
  /** How long closing the window waits for a stop (EC2: also for the instances to be deleted). */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
  private static final Duration CLOSE_WAIT_EC2 = Duration.ofMinutes(15);

  /**
   * What the EC2 path takes from outside the window: where instances are reached (an instance's public address on
   * AWS) and the backend's options. Tests point both at loopback (an EC2 emulator's instances have fake addresses).
   */
  record Ec2Hooks(AddressMapper mapper, Function<Integer, Ec2Backend.Options> options, Duration pollInterval) {
    static Ec2Hooks defaults() {
      return new Ec2Hooks(AddressMapper.PUBLIC, basePort -> new Ec2Backend.Options(false, Duration.ofMinutes(10),
          Ec2Provisioner.SSH_PORT, basePort, SshSettings.DEFAULT_REMOTE_DIR, null), null);
    }
  }

  private final Workspace workspace;
  private final Stage stage;
  private final BorderPane root = new BorderPane();
  private final Label fileLabel = new Label();
  private final Label fileState = new Label();
  private final ToggleGroup backendGroup = new ToggleGroup();
  private final RadioButton localButton = new RadioButton("This machine");
  private final RadioButton sshButton = new RadioButton("SSH hosts");
  private final RadioButton ec2Button = new RadioButton("EC2");
  private final CheckBox singleJvm = new CheckBox("all servers in one JVM");
  private final TextField hostsFile = new TextField();
  private final CheckBox acceptNewKeys = new CheckBox("accept and record new host keys");
  private final TextField callerCidr = new TextField();
  private final TextField endpoint = new TextField();
  private final CheckBox keep = new CheckBox("keep the instances after Stop");
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
  private volatile Ec2Hooks ec2Hooks = Ec2Hooks.defaults();
  private Deployment current;
  private boolean preparing;
  private Dialog<ButtonType> confirmation;

  public DeployView(Workspace workspace, Stage stage) {
    this.workspace = workspace;
    this.stage = stage;
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
  void ec2Hooks(Ec2Hooks hooks) {
    this.ec2Hooks = hooks;
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

    localButton.setId("backend-local");
    sshButton.setId("backend-ssh");
    ec2Button.setId("backend-ec2");
    for (RadioButton b : List.of(localButton, sshButton, ec2Button)) {
      b.setToggleGroup(backendGroup);
    }
    localButton.setSelected(true);
    HBox backendRow = row(bold("Run on"), localButton, sshButton, ec2Button);

    singleJvm.setId("local-single-jvm");
    singleJvm.setTooltip(new Tooltip("One JVM for every server (less memory; one process to watch)"));
    HBox localOptions = row(new Label("Servers run as child processes of the designer, on loopback."), singleJvm);

    hostsFile.setId("ssh-hosts-file");
    hostsFile.setPromptText("hosts.yaml (docs/ssh.md#benchmarks-on-your-hosts)");
    hostsFile.setPrefColumnCount(36);
    Button browse = new Button("Browse...");
    browse.setId("ssh-browse");
    browse.setOnAction(e -> browseHosts());
    acceptNewKeys.setId("ssh-accept-new");
    HBox sshOptions = row(new Label("Hosts file"), hostsFile, browse, acceptNewKeys);

    callerCidr.setId("ec2-caller-cidr");
    callerCidr.setPromptText("empty: asks checkip.amazonaws.com");
    callerCidr.setPrefColumnCount(18);
    endpoint.setId("ec2-endpoint");
    endpoint.setPromptText("empty: AWS (an emulator's URL for tests)");
    endpoint.setPrefColumnCount(22);
    keep.setId("ec2-keep");
    HBox ec2Options = row(new Label("Your address (CIDR)"), callerCidr, new Label("EC2 endpoint"), endpoint, keep);
    Label ec2Note = new Label("Instances, key pair and security groups come from the file's ec2: section"
        + " (docs/ec2.md); you see the cost and confirm before anything is created.");
    ec2Note.setWrapText(true);
    VBox ec2Box = new VBox(4, ec2Options, ec2Note);

    VBox options = new VBox(localOptions);
    backendGroup.selectedToggleProperty().addListener((obs, old, t) -> {
      options.getChildren().setAll(t == sshButton ? sshOptions : t == ec2Button ? ec2Box : localOptions);
      message.setText("");
    });

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

    VBox top = new VBox(8, fileBox, backendRow, options, actions, message);
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
    HBox h = new HBox(10, nodes);
    h.setAlignment(Pos.CENTER_LEFT);
    return h;
  }

  private static Label bold(String text) {
    Label l = new Label(text);
    l.setStyle("-fx-font-weight: bold;");
    l.setMinWidth(Region.USE_PREF_SIZE);
    return l;
  }

  private void browseHosts() {
    FileChooser chooser = new FileChooser();
    chooser.setTitle("Hosts file (docs/ssh.md)");
    chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter("YAML", "*.yaml", "*.yml"));
    chooser.setInitialDirectory(workspace.home().toFile());
    File f = chooser.showOpenDialog(stage);
    if (f != null) {
      hostsFile.setText(f.getPath());
    }
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

  private String backendChoice() {
    return sshButton.isSelected() ? SSH : ec2Button.isSelected() ? EC2 : LOCAL;
  }

  private void deploy() {
    message.setText("");
    Path file = workspace.clusterFile().get();
    if (file == null) {
      message.setText("Nothing to deploy: no cluster file. Fix: save the design first (Design tab), then click Deploy.");
      return;
    }
    String backend = backendChoice();
    String hosts = hostsFile.getText().trim();
    String cidr = callerCidr.getText().trim();
    String url = endpoint.getText().trim();
    boolean oneJvm = singleJvm.isSelected();
    boolean acceptNew = acceptNewKeys.isSelected();
    boolean keepInstances = keep.isSelected();
    preparing = true;
    updateButtons();
    phaseLabel.setText("checking " + file.getFileName());
    workspace.background().execute(() -> {
      try {
        ClusterConfig config = load(file);
        switch (backend) {
          case LOCAL -> onFx(() -> launch(LOCAL, config.name(), localPlan(file, config, oneJvm)));
          case SSH -> {
            SshHosts h = loadHosts(workspace.home(), hosts, acceptNew);
            onFx(() -> launch(SSH, config.name(), sshPlan(config, h)));
          }
          default -> prepareEc2(file, config, cidr, url, keepInstances);
        }
      } catch (ConfigException | IllegalArgumentException | Ec2Error e) {
        onFx(() -> refuse(Deployment.message(e)));
      } catch (RuntimeException | Error e) {
        onFx(() -> refuse("cannot deploy: " + e));
      }
    });
  }

  private static SshHosts loadHosts(Path home, String hosts, boolean acceptNew) throws ConfigException {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("SSH needs a hosts file. Fix: give one under 'Hosts file' (format: docs/ssh.md,"
          + " 'Benchmarks on your hosts')");
    }
    Path p = home.resolve(hosts); // a relative path is relative to the designer's working directory
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException("the hosts file " + hosts + " does not exist. Fix: give an existing hosts file"
          + " (format: docs/ssh.md, 'Benchmarks on your hosts')");
    }
    SshHosts h = SshHosts.load(p);
    return acceptNew ? h.withSettings(h.settings().withHostKeys(SshSettings.HostKeyPolicy.ACCEPT_NEW)) : h;
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
        return new SshBackend(hosts, distribution(), listener);
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

  /**
   * What is uploaded to SSH hosts and EC2 instances: the designer's own jar when it runs from its shaded jar (it
   * holds all of kvlab), else the checkout's kvlab.jar, else the class path it runs with.
   */
  private Distribution distribution() throws IOException {
    String cp = System.getProperty("java.class.path");
    if (!cp.contains(File.pathSeparator) && cp.endsWith(".jar") && Files.isRegularFile(Path.of(cp))) {
      return Distribution.shadedJar(Path.of(cp));
    }
    Path jar = workspace.home().resolve("cluster-manager/target/kvlab.jar");
    if (Files.isRegularFile(jar)) {
      return Distribution.shadedJar(jar);
    }
    return Distribution.fromClassPath(cp, workspace.home().resolve(".kvlab").resolve("designer").resolve("dist"));
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

  private void prepareEc2(Path file, ClusterConfig config, String cidr, String url, boolean keepInstances)
      throws ConfigException {
    Ec2Spec spec = Ec2Spec.load(file, config);
    URI ep = null;
    if (!url.isEmpty()) {
      try {
        ep = URI.create(url);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the EC2 endpoint '" + url + "' is not a URL (" + e.getMessage()
            + "). Fix: write e.g. http://127.0.0.1:5000, or leave it empty for AWS");
      }
      if (ep.getScheme() == null || ep.getHost() == null) {
        throw new IllegalArgumentException("the EC2 endpoint '" + url + "' is not a URL. Fix: write e.g."
            + " http://127.0.0.1:5000, or leave it empty for AWS");
      }
    }
    Ec2Hooks hooks = ec2Hooks;
    Duration poll = hooks.pollInterval() != null ? hooks.pollInterval()
        : ep != null ? Duration.ofMillis(200) : Duration.ofSeconds(5);
    Path stateRoot = workspace.home().resolve(".kvlab").resolve("ec2");
    Ec2Clients clients = new Ec2Clients(Ec2Clients.defaultChain(), ep);
    int basePort = config.servers().stream().mapToInt(ClusterConfig.ServerSpec::port).min().orElse(SshHosts.DEFAULT_BASE_PORT);
    Ec2Backend.Options options = hooks.options().apply(basePort).withKeep(keepInstances);
    CallerAddress caller = cidr.isEmpty() ? CallerAddress.checkIp() : CallerAddress.fixed(cidr);
    onFx(() -> {
      Deployment d = new Deployment(EC2, config.name(), new FxUi());
      Ec2Provisioner provisioner = new Ec2Provisioner(clients, PriceTable.bundled(), Ec2Backend.forward(d.listener()),
          new Ec2Provisioner.Options(Clock.systemUTC(), poll, Duration.ofMinutes(10), stateRoot));
      Ec2Plan plan;
      try {
        plan = provisioner.plan(config, spec);
      } catch (RuntimeException e) {
        clients.close();
        refuse("cannot estimate the EC2 cost: " + Deployment.message(e));
        return;
      }
      workspace.background().execute(() -> {
        try {
          provisioner.checkCredentials(); // no AWS call: only where credentials come from
          onFx(() -> confirmEc2(d, plan, new Deployment.Plan() {
            @Override
            public ClusterBackend create(ClusterListener listener) throws IOException {
              return new Ec2Backend(provisioner, stateRoot, distribution(), listener, options);
            }

            @Override
            public void provision(ClusterBackend backend) throws Exception {
              ((Ec2Backend) backend).up(config, spec, caller, hooks.mapper());
            }

            @Override
            public ClusterRef place(ClusterBackend backend) throws Exception {
              return placed(backend, config);
            }
          }, clients));
        } catch (Ec2Error e) {
          clients.close();
          onFx(() -> refuse(Deployment.message(e)));
        }
      });
    });
  }

  private void confirmEc2(Deployment d, Ec2Plan plan, Deployment.Plan deployPlan, Ec2Clients clients) {
    Dialog<ButtonType> dialog = new Dialog<>();
    dialog.setTitle("Create EC2 instances?");
    if (stage != null && stage.getScene() != null) {
      dialog.initOwner(stage);
    }
    dialog.initModality(Modality.WINDOW_MODAL);
    dialog.getDialogPane().setId("ec2-confirm");
    dialog.setHeaderText("Create " + plan.instances() + " EC2 instance(s) in " + plan.regions().size()
        + " region(s) for cluster " + plan.cluster() + "?");
    Label cost = new Label(plan.cost());
    cost.setId("ec2-cost");
    cost.setWrapText(true);
    cost.setStyle("-fx-font-weight: bold;");
    cost.setMaxWidth(880);
    List<String> what = plan.lines().stream().filter(l -> !l.equals(plan.cost())).toList(); // the cost is above
    TextArea lines = new TextArea(String.join("\n", what));
    lines.setId("ec2-plan");
    lines.setEditable(false);
    lines.setWrapText(true);
    lines.setPrefRowCount(Math.min(18, what.size() + 4));
    lines.setPrefColumnCount(100);
    lines.setStyle("-fx-font-family: monospace;");
    Label notIn = new Label("Not in the estimate: root disks, data transfer and public IPv4 addresses (docs/ec2.md)."
        + " The instances terminate themselves after " + plan.expiry().toHours() + " h; Stop deletes them.");
    notIn.setWrapText(true);
    notIn.setMaxWidth(880);
    dialog.getDialogPane().setContent(new VBox(10, cost, lines, notIn));
    ButtonType create = new ButtonType("Create instances", ButtonBar.ButtonData.OK_DONE);
    dialog.getDialogPane().getButtonTypes().addAll(create, ButtonType.CANCEL);
    dialog.getDialogPane().lookupButton(create).setId("ec2-create");
    dialog.getDialogPane().lookupButton(ButtonType.CANCEL).setId("ec2-cancel");
    // Cancel is the default: Enter must not create instances that cost money
    ((Button) dialog.getDialogPane().lookupButton(create)).setDefaultButton(false);
    ((Button) dialog.getDialogPane().lookupButton(ButtonType.CANCEL)).setDefaultButton(true);
    dialog.setOnHidden(e -> {
      confirmation = null;
      if (dialog.getResult() == create) {
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
        clients.close();
        preparing = false;
        phaseLabel.setText("not deployed");
        message.setText("");
        log("EC2 deploy cancelled: nothing was created");
        progress.setText("EC2 deploy cancelled: nothing was created");
        updateButtons();
      }
    });
    dialog.getDialogPane().setPrefWidth(920);
    confirmation = dialog;
    phaseLabel.setText("waiting for your confirmation (nothing created yet)");
    dialog.show();
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
    Alert alert = new Alert(Alert.AlertType.INFORMATION);
    alert.setTitle("EC2 teardown");
    if (stage != null && stage.getScene() != null) {
      alert.initOwner(stage);
    }
    alert.getDialogPane().setId("ec2-teardown");
    alert.setHeaderText(removed.isEmpty() ? "EC2 teardown of " + cluster + ": nothing carried the cluster's tags"
        : "EC2 teardown of " + cluster + ": removed " + removed.size() + " resource(s)");
    ListView<String> list = new ListView<>(FXCollections.observableArrayList(removed));
    list.setId("teardown-list");
    list.setPrefSize(720, Math.min(400, 28 * (removed.size() + 1)));
    alert.getDialogPane().setContent(list);
    alert.show();
  }
}
