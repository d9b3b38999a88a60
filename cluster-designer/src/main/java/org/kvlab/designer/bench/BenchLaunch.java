package org.kvlab.designer.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javafx.application.Platform;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ec2.Ec2Backend;
import org.kvlab.cluster.ec2.Ec2Cluster;
import org.kvlab.cluster.ec2.Ec2Error;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ssh.SshBackend;
import org.kvlab.cluster.ssh.SshHosts;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import org.kvlab.config.YamlReader;
import org.kvlab.designer.Workspace;
import org.kvlab.designer.deploy.BackendChoice;
import org.kvlab.experiment.Experiment;
import org.kvlab.experiment.ExperimentListener;
import org.kvlab.experiment.ExperimentRunner;
import org.kvlab.experiment.Results;
import org.kvlab.experiment.RunPlan;

/**
 * One benchmark of the Benchmark tab on the backend the user chose, as {@code kvlab bench --backend ...} runs it:
 * the backend made (SSH: the hosts file's hosts; EC2: the plan and its cost, the user's confirmation, then the
 * instances created and waited for), the library's {@link ExperimentRunner} run on it, and the backend closed at the
 * end (EC2: every resource of the experiment's cluster deleted and listed, unless kept). {@link #stop()} works at every
 * stage: while the instances are created or waited for it interrupts that (what exists is deleted), later it stops
 * the runner (clients killed, cluster stopped, what was measured written), and the teardown follows either way.
 * Everything slow runs on the workspace's background threads.
 */
final class BenchLaunch {
  /** What the launch tells the tab; called from any thread. */
  interface Ui {
    void status(String line);

    void log(String line);

    void runner(ExperimentRunner runner);

    /** The benchmark ended: its result (null if it never ran), and why it did not run or what went wrong after. */
    void finished(ExperimentRunner runner, Results.ExperimentResult result, String failure);

    /** Nothing was started (the EC2 confirmation was cancelled, a choice is not usable). */
    void cancelled(String why);
  }

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
  private static final Duration CLOSE_WAIT_EC2 = Duration.ofMinutes(15);

  private final Workspace workspace;
  private final BackendChoice choice;
  private final Ui ui;
  private final ObservableList<String> lastTeardown = FXCollections.observableArrayList();
  private volatile boolean stopping;
  private volatile boolean provisioning;
  private volatile Thread thread;
  private volatile ExperimentRunner runner;
  private volatile String backendName = BackendChoice.LOCAL;
  private volatile CountDownLatch done = new CountDownLatch(0);

  BenchLaunch(Workspace workspace, BackendChoice choice, Ui ui) {
    this.workspace = workspace;
    this.choice = choice;
    this.ui = ui;
  }

  /** Where a choice runs the benchmark, for the status line. */
  static String where(BackendChoice.Choice c) {
    return switch (c.backend()) {
      case BackendChoice.SSH -> "on the SSH hosts of " + c.hostsFile();
      case BackendChoice.EC2 -> "on EC2 instances";
      case BackendChoice.DEPLOYED -> "on the cluster running in the Deploy tab";
      default -> "on this machine";
    };
  }

  /** True while the backend is not this machine (Stop then also releases hosts). */
  boolean remote() {
    return !backendName.equals(BackendChoice.LOCAL);
  }

  /** What the last EC2 teardown of this tab removed (JavaFX thread). */
  ObservableList<String> lastTeardown() {
    return lastTeardown;
  }

  /**
   * Starts {@code e} on the backend of {@code where} (JavaFX thread); false if nothing was started because the
   * window is closing.
   */
  boolean start(Experiment e, BackendChoice.Choice where, ExperimentRunner.Options options, ExperimentListener live) {
    stopping = false;
    backendName = where.backend();
    CountDownLatch latch = new CountDownLatch(1);
    done = latch;
    Runnable task = switch (where.backend()) {
      case BackendChoice.SSH -> () -> onSsh(e, where, options, live);
      case BackendChoice.EC2 -> () -> prepareEc2(e, where, options, live);
      case BackendChoice.DEPLOYED -> {
        Workspace.Deployed d = workspace.deployed().get();
        if (d == null) {
          latch.countDown();
          ui.cancelled("Not run: no cluster runs in the Deploy tab. Fix: deploy one there first, or pick another"
              + " 'Run on' choice");
          yield null;
        }
        // kvlab bench --use-running: the running cluster's protocol, its clients where its backend runs clients
        yield () -> execute(e, options.withUseRunning(d.cluster().file()).withBackend(d.backend()), live, (Runnable) null);
      }
      default -> () -> execute(e, options, live, (Runnable) null);
    };
    if (task == null) {
      return false;
    }
    if (!BenchView.inBackground(workspace, task)) {
      latch.countDown();
      return false;
    }
    return true;
  }

  private ClusterListener listener() {
    return new BackendChoice.Removed(ui::status, ui::log);
  }

  private void onSsh(Experiment e, BackendChoice.Choice where, ExperimentRunner.Options options,
      ExperimentListener live) {
    SshBackend backend;
    try {
      SshHosts hosts = choice.sshHosts(where);
      SshBackend.checkCovers(e.cluster().datacenters(), hosts);
      backend = new SshBackend(hosts, choice.distribution(), listener());
    } catch (ConfigException | IllegalArgumentException | BackendException | IOException ex) {
      notRun(BackendChoice.message(ex));
      return;
    }
    runThenClose(e, options.withBackend(backend), live, backend);
  }

  /** The EC2 plan for the experiment's cluster, its cost and the confirmation; nothing is created before it. */
  private void prepareEc2(Experiment e, BackendChoice.Choice where, ExperimentRunner.Options options,
      ExperimentListener live) {
    Path file = workspace.clusterFile().get();
    BackendChoice.Removed removed = new BackendChoice.Removed(ui::status, ui::log);
    BackendChoice.Ec2Setup setup;
    ClusterConfig shape;
    Ec2Spec spec;
    try {
      if (file == null) {
        throw new IllegalArgumentException("EC2 takes its instances from the ec2: section of the design's cluster"
            + " file, and no cluster file is open. Fix: open or save a cluster file with an ec2: section in the"
            + " Design tab (docs/ec2.md)");
      }
      int basePort = choice.ec2BasePort(SshHosts.DEFAULT_BASE_PORT);
      shape = RunPlan.shape(e, basePort);
      spec = Ec2Spec.parse(YamlReader.readText(file, "cluster file"), file.toString(), shape);
      setup = choice.ec2(shape, spec, where, basePort, removed);
    } catch (ConfigException | IllegalArgumentException | Ec2Error ex) {
      notRun(BackendChoice.message(ex));
      return;
    }
    Platform.runLater(() -> {
      ui.status("Waiting for your confirmation: nothing is created before it");
      choice.confirm(setup.plan(), "benchmark " + e.name() + " (cluster " + shape.name() + ")", create -> {
        if (!create) {
          setup.clients().close();
          done.countDown();
          ui.cancelled("EC2 benchmark cancelled: nothing was created");
          return;
        }
        ui.log("confirmed: " + setup.plan().cost());
        if (!BenchView.inBackground(workspace, () -> onEc2(e, options, live, setup, shape, spec, removed))) {
          setup.clients().close();
          done.countDown();
        }
      });
    });
  }

  private void onEc2(Experiment e, ExperimentRunner.Options options, ExperimentListener live,
      BackendChoice.Ec2Setup setup, ClusterConfig shape, Ec2Spec spec, BackendChoice.Removed removed) {
    Ec2Backend backend;
    try {
      backend = setup.backend(choice.distribution(), removed);
    } catch (IOException ex) {
      setup.clients().close();
      notRun(BackendChoice.message(ex));
      return;
    }
    thread = Thread.currentThread();
    try {
      stage("creating the EC2 instances of " + shape.name());
      provisioning = true;
      try {
        if (stopping) {
          throw new BackendException("stopped before the instances were created", null, true);
        }
        backend.up(shape, spec, setup.caller(), setup.mapper());
      } finally {
        provisioning = false;
        Thread.interrupted(); // a stop's interrupt ended the wait; the teardown below must not be interrupted
      }
      if (stopping) {
        throw new BackendException("stopped once the instances were up, before the benchmark", null, true);
      }
    } catch (BackendException ex) {
      thread = null;
      String why = ex.cancelled() || stopping ? "stopped while the EC2 instances were made ready: " + ex.getMessage()
          : BackendChoice.say(ex);
      release(backend, setup, shape.name(), removed);
      notRun(why);
      return;
    }
    thread = null;
    execute(e, options.withBackend(backend), live, () -> release(backend, setup, shape.name(), removed));
  }

  /** Closes the EC2 backend: deletes every resource of the cluster, or keeps the instances if the user said so. */
  private void release(Ec2Backend backend, BackendChoice.Ec2Setup setup, String cluster,
      BackendChoice.Removed removed) {
    Ec2Cluster up = backend.cluster();
    stage("tearing down: " + (setup.options().keep() && up != null ? "keeping" : "deleting")
        + " the EC2 resources of " + cluster);
    String problem = null;
    try {
      backend.close();
    } catch (BackendException ex) {
      problem = BackendChoice.message(ex);
      ui.log("teardown: " + problem);
    } finally {
      setup.clients().close();
    }
    if (setup.options().keep() && up != null) {
      String line = cluster + " (owner " + up.owner() + "): " + up.hosts().stream()
          .map(h -> h.instance().id() + " in " + h.instance().region() + " at " + h.host())
          .collect(Collectors.joining(", ")) + "; they terminate themselves at " + up.expires();
      ui.log("kept: " + line);
      ui.status("kept the EC2 instances of " + cluster + " (listed in the Deploy tab with their expiry)");
      Platform.runLater(() -> workspace.keptInstances().add(line));
      return;
    }
    List<String> gone = removed.list();
    ui.log("EC2 teardown of " + cluster + ": removed " + gone.size() + " resource(s)"
        + (problem == null ? "" : "; " + problem));
    gone.forEach(r -> ui.log("  removed " + r));
    Platform.runLater(() -> {
      lastTeardown.setAll(gone);
      choice.showTeardown(cluster, gone);
    });
  }

  private void runThenClose(Experiment e, ExperimentRunner.Options options, ExperimentListener live,
      ClusterBackend toClose) {
    execute(e, options, live, toClose == null ? null : () -> {
      stage("releasing the hosts (closing the SSH connections)");
      try {
        toClose.close();
      } catch (BackendException ex) {
        ui.log("releasing the hosts: " + BackendChoice.message(ex));
      }
    });
  }

  /** Runs the experiment with the runner; {@code release} (if any) closes what the launch made, whatever happens. */
  private void execute(Experiment e, ExperimentRunner.Options options, ExperimentListener live, Runnable release) {
    ExperimentRunner r = new ExperimentRunner(options);
    r.addListener(live);
    runner = r;
    ui.runner(r);
    Results.ExperimentResult result = null;
    String failure = null;
    try {
      if (stopping) {
        r.requestStop();
      }
      result = r.run(e);
    } catch (IOException | RuntimeException ex) {
      failure = ex.getMessage() == null ? ex.toString() : ex.getMessage();
    } finally {
      runner = null;
      if (release != null) {
        release.run();
      }
      ui.finished(r, result, failure);
      done.countDown();
    }
  }

  /** A stage of the launch: in the status line and the log. */
  private void stage(String line) {
    ui.status(line);
    ui.log(line);
  }

  private void notRun(String why) {
    ui.finished(null, null, why);
    done.countDown();
  }

  /** Stop: interrupts the instances' creation or the wait for them, else asks the runner to stop (any thread). */
  void stop() {
    stopping = true;
    Thread t = thread;
    if (provisioning && t != null) {
      t.interrupt();
    }
    ExperimentRunner r = runner;
    if (r != null) {
      r.requestStop();
    }
  }

  /** The window closes: stops and waits until the benchmark ended and its backend was released. */
  void close() {
    stop();
    try {
      Duration wait = backendName.equals(BackendChoice.EC2) ? CLOSE_WAIT_EC2 : CLOSE_WAIT;
      done.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
