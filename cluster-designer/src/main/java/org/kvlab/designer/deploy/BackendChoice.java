package org.kvlab.designer.deploy;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import javafx.collections.FXCollections;
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
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Toggle;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Modality;
import javafx.stage.Stage;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClusterEvent;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ec2.AddressMapper;
import org.kvlab.cluster.ec2.CallerAddress;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Error;
import org.kvlab.cluster.ec2.Ec2Plan;
import org.kvlab.cluster.ec2.Ec2Provisioner;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ec2.PriceTable;
import org.kvlab.cluster.ssh.Distribution;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.cluster.ssh.SshSettings;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.designer.Workspace;

/**
 * Where a tab runs its cluster, as the user picks it: this machine, the SSH hosts of a hosts file, EC2 instances made
 * from a cluster file's {@code ec2:} section, or (the Benchmark tab) the cluster the Deploy tab has running. One
 * component for the Deploy and Benchmark tabs: the same buttons, fields and checks, and the same EC2 steps — the
 * plan and its cost, the confirmation (Cancel the default) before anything is created, and the list of what the
 * teardown removed. The controls' ids are the tab's prefix plus {@code backend-local}, {@code ssh-hosts-file}...
 */
public final class BackendChoice {
  public static final String LOCAL = "local";
  public static final String SSH = "ssh";
  public static final String EC2 = "ec2";
  /** The cluster the Deploy tab has running ({@code kvlab bench --use-running}). */
  public static final String DEPLOYED = "deployed";

  /**
   * What the EC2 path takes from outside the window: where instances are reached (an instance's public address on
   * AWS) and the backend's options for a first server port. Tests point both at loopback (an EC2 emulator's
   * instances have fake addresses).
   */
  public record Ec2Hooks(AddressMapper mapper, Function<Integer, Ec2Backend.Options> options, Duration pollInterval) {
    public static Ec2Hooks defaults() {
      return new Ec2Hooks(AddressMapper.PUBLIC, basePort -> new Ec2Backend.Options(false, Duration.ofMinutes(10),
          Ec2Provisioner.SSH_PORT, basePort, SshSettings.DEFAULT_REMOTE_DIR, null), null);
    }
  }

  /** What the user chose, read on the JavaFX thread (the fields as typed, trimmed). */
  public record Choice(String backend, boolean singleJvm, String hostsFile, boolean acceptNewKeys, String callerCidr,
      String endpoint, boolean keep) {}

  /** The EC2 path, checked and priced, nothing created yet. Close {@link #clients()} if it is not used. */
  public record Ec2Setup(Ec2Clients clients, Ec2Provisioner provisioner, Ec2Plan plan, Path stateRoot,
      Ec2Backend.Options options, CallerAddress caller, AddressMapper mapper) {
    /** The backend that creates the instances ({@link Ec2Backend#up}) and, closed, deletes them. */
    public Ec2Backend backend(Distribution dist, ClusterListener listener) {
      return new Ec2Backend(provisioner, stateRoot, dist, listener, options);
    }
  }

  private final Workspace workspace;
  private final Stage stage;
  private final ToggleGroup group = new ToggleGroup();
  private final RadioButton localButton = new RadioButton("This machine");
  private final RadioButton sshButton = new RadioButton("SSH hosts");
  private final RadioButton ec2Button = new RadioButton("EC2");
  private final RadioButton deployedButton = new RadioButton("The cluster running in the Deploy tab");
  private final CheckBox singleJvm = new CheckBox("all servers in one JVM");
  private final TextField hostsFile = new TextField();
  private final CheckBox acceptNewKeys = new CheckBox("accept and record new host keys");
  private final TextField callerCidr = new TextField();
  private final TextField endpoint = new TextField();
  private final CheckBox keep = new CheckBox("keep the instances after Stop");
  private final HBox selector;
  private final VBox options = new VBox();
  private volatile Ec2Hooks ec2Hooks = Ec2Hooks.defaults();

  /**
   * @param prefix the ids' prefix ("" for the Deploy tab, "bench-" for the Benchmark tab: one scene holds both)
   * @param localNote what "this machine" does, shown beside its option
   * @param ec2Note where the EC2 instances' description comes from, shown under the EC2 fields
   * @param offerDeployed whether "the cluster running in the Deploy tab" is a choice
   */
  public BackendChoice(Workspace workspace, Stage stage, String prefix, String localNote, String ec2Note,
      boolean offerDeployed) {
    this.workspace = workspace;
    this.stage = stage;
    localButton.setId(prefix + "backend-local");
    sshButton.setId(prefix + "backend-ssh");
    ec2Button.setId(prefix + "backend-ec2");
    deployedButton.setId(prefix + "backend-deployed");
    List<Node> buttons = new ArrayList<>(List.of(bold("Run on"), localButton, sshButton, ec2Button));
    if (offerDeployed) {
      buttons.add(deployedButton);
    }
    for (RadioButton b : List.of(localButton, sshButton, ec2Button, deployedButton)) {
      b.setToggleGroup(group);
    }
    localButton.setSelected(true);
    selector = row(buttons.toArray(Node[]::new));

    singleJvm.setId(prefix + "local-single-jvm");
    singleJvm.setTooltip(new Tooltip("One JVM for every server (less memory; one process to watch)"));
    HBox localOptions = row(new Label(localNote), singleJvm);

    hostsFile.setId(prefix + "ssh-hosts-file");
    hostsFile.setPromptText("hosts.yaml (docs/ssh.md#benchmarks-on-your-hosts)");
    hostsFile.setPrefColumnCount(36);
    Button browse = new Button("Browse...");
    browse.setId(prefix + "ssh-browse");
    browse.setOnAction(e -> browseHosts());
    acceptNewKeys.setId(prefix + "ssh-accept-new");
    HBox sshOptions = row(new Label("Hosts file"), hostsFile, browse, acceptNewKeys);

    callerCidr.setId(prefix + "ec2-caller-cidr");
    callerCidr.setPromptText("empty: asks checkip.amazonaws.com");
    callerCidr.setPrefColumnCount(18);
    endpoint.setId(prefix + "ec2-endpoint");
    endpoint.setPromptText("empty: AWS (an emulator's URL for tests)");
    endpoint.setPrefColumnCount(22);
    keep.setId(prefix + "ec2-keep");
    HBox ec2Options = row(new Label("Your address (CIDR)"), callerCidr, new Label("EC2 endpoint"), endpoint, keep);
    Label ec2Text = new Label(ec2Note);
    ec2Text.setWrapText(true);
    VBox ec2Box = new VBox(4, ec2Options, ec2Text);

    Label deployedNote = new Label();
    deployedNote.setId(prefix + "deployed-note");
    deployedNote.setWrapText(true);
    Runnable describeDeployed = () -> {
      Workspace.Deployed d = workspace.deployed().get();
      deployedNote.setText(d == null ? "No cluster runs from the Deploy tab. Fix: deploy one there first."
          : "Benchmarks " + d.cluster().config().name() + " (" + d.cluster().config().protocol() + ", "
              + d.cluster().config().servers().size() + " servers) running on " + d.backend().name()
              + "; its clients run where that backend runs clients (kvlab bench --use-running).");
    };
    workspace.deployed().addListener((o, a, b) -> describeDeployed.run());
    describeDeployed.run();

    options.getChildren().setAll(localOptions);
    group.selectedToggleProperty().addListener((obs, old, t) -> options.getChildren().setAll(
        t == sshButton ? sshOptions : t == ec2Button ? ec2Box : t == deployedButton ? deployedNote : localOptions));
  }

  /** The "Run on" row of choices. */
  public Node selector() {
    return selector;
  }

  /** The chosen backend's fields (they change with the choice). */
  public Node options() {
    return options;
  }

  /** Calls {@code r} when the choice changes. */
  public void onChange(Consumer<Toggle> r) {
    group.selectedToggleProperty().addListener((o, a, t) -> r.accept(t));
  }

  /** Enables or disables every control (nothing to change while something runs). */
  public void setDisable(boolean disabled) {
    selector.setDisable(disabled);
    options.setDisable(disabled);
  }

  /** The choice and its fields, as they are now (JavaFX thread). */
  public Choice choice() {
    String b = sshButton.isSelected() ? SSH : ec2Button.isSelected() ? EC2 : deployedButton.isSelected() ? DEPLOYED
        : LOCAL;
    return new Choice(b, singleJvm.isSelected(), hostsFile.getText().trim(), acceptNewKeys.isSelected(),
        callerCidr.getText().trim(), endpoint.getText().trim(), keep.isSelected());
  }

  /** For tests: how EC2 instances are reached and the EC2 backend's options. */
  public void ec2Hooks(Ec2Hooks hooks) {
    this.ec2Hooks = hooks;
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

  static HBox row(Node... nodes) {
    HBox h = new HBox(10, nodes);
    h.setAlignment(Pos.CENTER_LEFT);
    return h;
  }

  static Label bold(String text) {
    Label l = new Label(text);
    l.setStyle("-fx-font-weight: bold;");
    l.setMinWidth(Region.USE_PREF_SIZE);
    return l;
  }

  // ---------------------------------------------------------------------------------------------
  // checks and the pieces the backends are made of (off the JavaFX thread)

  /** The hosts file of the SSH choice, with "accept and record new host keys" applied. */
  public SshHosts sshHosts(Choice c) throws ConfigException {
    String hosts = c.hostsFile();
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("SSH needs a hosts file. Fix: give one under 'Hosts file' (format: docs/ssh.md,"
          + " 'Benchmarks on your hosts')");
    }
    Path p = workspace.home().resolve(hosts); // a relative path is relative to the designer's working directory
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException("the hosts file " + hosts + " does not exist. Fix: give an existing hosts file"
          + " (format: docs/ssh.md, 'Benchmarks on your hosts')");
    }
    SshHosts h = SshHosts.load(p);
    return c.acceptNewKeys() ? h.withSettings(h.settings().withHostKeys(SshSettings.HostKeyPolicy.ACCEPT_NEW)) : h;
  }

  /**
   * What is uploaded to SSH hosts and EC2 instances: the designer's own jar when it runs from its shaded jar (it
   * holds all of kvlab), else the checkout's kvlab.jar, else the class path it runs with.
   */
  public Distribution distribution() throws IOException {
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

  /** The first server port of EC2 instances: what the EC2 options give for {@code fallback}. */
  public int ec2BasePort(int fallback) {
    return ec2Hooks.options().apply(fallback).basePort();
  }

  /**
   * The EC2 choice checked and priced for the cluster {@code shape} with the instances of {@code spec}: the
   * endpoint, the plan and its cost, and where credentials come from (no AWS call is made, nothing is created).
   * Events (and later the instances' creation and deletion) go to {@code listener}.
   */
  public Ec2Setup ec2(ClusterConfig shape, Ec2Spec spec, Choice c, int basePort, ClusterListener listener) {
    URI ep = endpoint(c.endpoint());
    Ec2Hooks hooks = ec2Hooks;
    Duration poll = hooks.pollInterval() != null ? hooks.pollInterval()
        : ep != null ? Duration.ofMillis(200) : Duration.ofSeconds(5);
    Path stateRoot = workspace.home().resolve(".kvlab").resolve("ec2");
    Ec2Clients clients = new Ec2Clients(Ec2Clients.defaultChain(), ep);
    boolean ok = false;
    try {
      Ec2Provisioner provisioner = new Ec2Provisioner(clients, PriceTable.bundled(), Ec2Backend.forward(listener),
          new Ec2Provisioner.Options(Clock.systemUTC(), poll, Duration.ofMinutes(10), stateRoot));
      Ec2Plan plan;
      try {
        plan = provisioner.plan(shape, spec);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("cannot estimate the EC2 cost: " + Deployment.message(e), e);
      }
      provisioner.checkCredentials(); // no AWS call: only where credentials come from
      Ec2Backend.Options options = hooks.options().apply(basePort).withKeep(c.keep());
      CallerAddress caller = c.callerCidr().isEmpty() ? CallerAddress.checkIp() : CallerAddress.fixed(c.callerCidr());
      ok = true;
      return new Ec2Setup(clients, provisioner, plan, stateRoot, options, caller, hooks.mapper());
    } finally {
      if (!ok) {
        clients.close();
      }
    }
  }

  private static URI endpoint(String url) {
    if (url.isEmpty()) {
      return null;
    }
    URI ep;
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
    return ep;
  }

  /** A failure of the checks above as the tab says it: the cause and the fix. */
  public static String message(Throwable e) {
    return Deployment.message(e);
  }

  // ---------------------------------------------------------------------------------------------
  // the EC2 dialogs (JavaFX thread)

  /**
   * Asks before anything is created: the plan, its cost, what the estimate leaves out. {@code answer} gets true
   * for "Create instances"; Cancel (the default button: Enter does not spend money) and closing give false.
   */
  public Dialog<ButtonType> confirm(Ec2Plan plan, String what, Consumer<Boolean> answer) {
    Dialog<ButtonType> dialog = new Dialog<>();
    dialog.setTitle("Create EC2 instances?");
    if (stage != null && stage.getScene() != null) {
      dialog.initOwner(stage);
    }
    dialog.initModality(Modality.WINDOW_MODAL);
    dialog.getDialogPane().setId("ec2-confirm");
    dialog.setHeaderText("Create " + plan.instances() + " EC2 instance(s) in " + plan.regions().size()
        + " region(s) for " + what + "?");
    Label cost = new Label(plan.cost());
    cost.setId("ec2-cost");
    cost.setWrapText(true);
    cost.setStyle("-fx-font-weight: bold;");
    cost.setMaxWidth(880);
    List<String> lines = plan.lines().stream().filter(l -> !l.equals(plan.cost())).toList(); // the cost is above
    TextArea text = new TextArea(String.join("\n", lines));
    text.setId("ec2-plan");
    text.setEditable(false);
    text.setWrapText(true);
    text.setPrefRowCount(Math.min(18, lines.size() + 4));
    text.setPrefColumnCount(100);
    text.setStyle("-fx-font-family: monospace;");
    Label notIn = new Label("Not in the estimate: root disks, data transfer and public IPv4 addresses (docs/ec2.md)."
        + " The instances terminate themselves after " + plan.expiry().toHours() + " h; Stop deletes them.");
    notIn.setWrapText(true);
    notIn.setMaxWidth(880);
    dialog.getDialogPane().setContent(new VBox(10, cost, text, notIn));
    ButtonType create = new ButtonType("Create instances", ButtonBar.ButtonData.OK_DONE);
    dialog.getDialogPane().getButtonTypes().addAll(create, ButtonType.CANCEL);
    dialog.getDialogPane().lookupButton(create).setId("ec2-create");
    dialog.getDialogPane().lookupButton(ButtonType.CANCEL).setId("ec2-cancel");
    // Cancel is the default: Enter must not create instances that cost money
    ((Button) dialog.getDialogPane().lookupButton(create)).setDefaultButton(false);
    ((Button) dialog.getDialogPane().lookupButton(ButtonType.CANCEL)).setDefaultButton(true);
    dialog.setOnHidden(e -> answer.accept(dialog.getResult() == create));
    dialog.getDialogPane().setPrefWidth(920);
    dialog.show();
    return dialog;
  }

  /** Shows what an EC2 teardown removed, one line per instance, security group, key pair and key file. */
  public void showTeardown(String cluster, List<String> removed) {
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

  /**
   * A backend's listener for a tab: progress lines to {@code status} and the log, every event to the log; and it
   * collects the DELETED events, what an EC2 teardown removed.
   */
  public static final class Removed implements ClusterListener {
    private final Consumer<String> status;
    private final Consumer<String> log;
    private final List<String> removed = new ArrayList<>();

    public Removed(Consumer<String> status, Consumer<String> log) {
      this.status = status;
      this.log = log;
    }

    @Override
    public void progress(String message) {
      status.accept(message);
      log.accept(message);
    }

    @Override
    public void event(ClusterEvent e) {
      if (e.kind() == ClusterEvent.Kind.DELETED) {
        synchronized (removed) {
          removed.add(e.message());
        }
      }
      log.accept(e.toString());
    }

    public List<String> list() {
      synchronized (removed) {
        return List.copyOf(removed);
      }
    }
  }

  /** A backend failure's text for the tab (the library's fixes name CLI flags; see {@link DeployView#forThisTab}). */
  public static String say(BackendException e) {
    return DeployView.forThisTab(message(e));
  }
}
