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
import org.kvlab.openloop.OpenLoopBench;
import org.kvlab.openloop.OpenLoopExperiment;

/**
 * One benchmark of the Benchmark tab on the backend the user chose, as {@code kvlab bench --backend ...} runs it:
 * the backend made (SSH: the hosts file's hosts; EC2: the plan and its cost, the user's confirmation, then the
 * instances created and waited for), the library's {@link ExperimentRunner} run on it, and the backend closed at the
 * end (EC2: every resource of the experiment's cluster deleted and listed, unless kept). {@link #stop()} works at every
 * stage: while the instances are created or waited for it interrupts that (what exists is deleted), later it stops
 * the runner (clients killed, cluster stopped, what was measured written), and the teardown follows either way.
 * An open-loop sweep ({@link #startOpenLoop}) goes the same way, {@link OpenLoopBench} run on the backend instead of
 * the runner (EC2: the instances sized for the sweep's cluster with the most datacenters, as {@code kvlab bench}
 * does); Stop interrupts the sweep, which writes the points measured. Everything slow runs on the workspace's
 * background threads.
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

  /**
   * What runs on the backend the launch made: the experiment's runner, or an open-loop sweep. {@code release} closes
   * the backend (SSH: the connections; EC2: the instances deleted); the job calls it when it ended, whatever happened.
   */
  private interface Job {
    String name();

    /** The datacenters each cluster of the job has (the hosts must cover each). */
    List<Integer> datacenters() throws ConfigException;

    /** The cluster EC2 instances are made for. */
    ClusterConfig ec2Shape(int basePort) throws ConfigException;

    void run(ClusterBackend backend, Runnable release);
  }

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);
  private static final Duration CLOSE_WAIT_EC2 = Duration.ofMinutes(15);

  private final Workspace workspace;
  private final BackendChoice choice;
  private final Ui ui;
  private final ObservableList<String> lastTeardown = FXCollections.observableArrayList();
  private volatile boolean stopping;
  private volatile boolean provisioning;
  /** An open-loop sweep runs on {@link #thread} (Stop interrupts it). */
  private volatile boolean sweeping;
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
    Job job = new Job() {
      @Override
      public String name() {
        return e.name();
      }

      @Override
      public List<Integer> datacenters() {
        return List.of(e.cluster().datacenters());
      }

      @Override
      public ClusterConfig ec2Shape(int basePort) {
        return RunPlan.shape(e, basePort);
      }

      @Override
      public void run(ClusterBackend backend, Runnable release) {
        execute(e, options.withBackend(backend), live, release);
      }
    };
    CountDownLatch latch = begin(where);
    Runnable task = switch (where.backend()) {
      case BackendChoice.SSH -> () -> onSsh(job, where);
      case BackendChoice.EC2 -> () -> prepareEc2(job, where);
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
    return task != null && queue(task, latch);
  }

  /**
   * Starts the open-loop sweep {@code e} on the SSH hosts or EC2 instances of {@code where} (JavaFX thread): once
   * the backend is ready, {@code sweep} runs on the launch's thread (an interrupt stops it) and returns what shows
   * its outcome, which runs on the JavaFX thread after the backend was released. False if nothing was started
   * because the window is closing.
   */
  boolean startOpenLoop(OpenLoopExperiment e, BackendChoice.Choice where,
      java.util.function.Function<ClusterBackend, Runnable> sweep) {
    Job job = new Job() {
      @Override
      public String name() {
        return e.name();
      }

      @Override
      public List<Integer> datacenters() throws ConfigException {
        List<Integer> n = new java.util.ArrayList<>();
        for (ClusterConfig c : clusters(e)) {
          n.add(c.topology().datacenters());
        }
        return n;
      }

      @Override
      public ClusterConfig ec2Shape(int basePort) throws ConfigException {
        // as kvlab bench --backend ec2: the instances serve the sweep's widest cluster, under its remote name
        ClusterConfig widest = clusters(e).stream()
            .max(java.util.Comparator.comparingInt(c -> c.topology().datacenters())).orElseThrow();
        return OpenLoopBench.onRemoteHosts(e, widest);
      }

      @Override
      public void run(ClusterBackend backend, Runnable release) {
        sweep(backend, sweep, release);
      }
    };
    CountDownLatch latch = begin(where);
    return queue(where.backend().equals(BackendChoice.EC2) ? () -> prepareEc2(job, where) : () -> onSsh(job, where),
        latch);
  }

  private static List<ClusterConfig> clusters(OpenLoopExperiment e) throws ConfigException {
    List<ClusterConfig> out = new java.util.ArrayList<>();
    for (Path c : e.clusters()) {
      out.add(ClusterConfig.load(c));
    }
    return out;
  }

  /** A launch begins: not stopping, on {@code where}'s backend; its latch counts down when it ended. */
  private CountDownLatch begin(BackendChoice.Choice where) {
    stopping = false;
    backendName = where.backend();
    CountDownLatch latch = new CountDownLatch(1);
    done = latch;
    return latch;
  }

  private boolean queue(Runnable task, CountDownLatch latch) {
    if (!BenchView.inBackground(workspace, task)) {
      latch.countDown();
      return false;
    }
    return true;
  }

  /** Runs the sweep on this thread (Stop interrupts it), releases the backend, then shows the outcome. */
  private void sweep(ClusterBackend backend, java.util.function.Function<ClusterBackend, Runnable> sweep,
      Runnable release) {
    Runnable show = null;
    thread = Thread.currentThread();
    sweeping = true;
    try {
      show = sweep.apply(backend);
    } finally {
      sweeping = false;
      thread = null;
      Thread.interrupted(); // a stop's interrupt ended the sweep; the release below must not be interrupted
      release.run();
      if (show != null) {
        Platform.runLater(show);
      }
      done.countDown();
    }
  }

  private ClusterListener listener() {
    return new BackendChoice.Removed(ui::status, ui::log);
  }

  private void onSsh(Job job, BackendChoice.Choice where) {
    SshBackend backend;
    try {
      SshHosts hosts = choice.sshHosts(where);
      for (int datacenters : job.datacenters()) {
        SshBackend.checkCovers(datacenters, hosts);
      }
      backend = new SshBackend(hosts, choice.distribution(), listener());
    } catch (ConfigException | IllegalArgumentException | BackendException | IOException ex) {
      notRun(BackendChoice.message(ex));
      return;
    }
    job.run(backend, () -> {
      stage("releasing the hosts (closing the SSH connections)");
      try {
        backend.close();
      } catch (BackendException ex) {
        ui.log("releasing the hosts: " + BackendChoice.message(ex));
      }
    });
  }

  /** The EC2 plan for the experiment's cluster, its cost and the confirmation; nothing is created before it. */
  private void prepareEc2(Job job, BackendChoice.Choice where) {
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
      shape = job.ec2Shape(basePort);
      spec = Ec2Spec.parse(YamlReader.readText(file, "cluster file"), file.toString(), shape);
      setup = choice.ec2(shape, spec, where, basePort, removed);
    } catch (ConfigException | IllegalArgumentException | Ec2Error ex) {
      notRun(BackendChoice.message(ex));
      return;
    }
    Platform.runLater(() -> {
      ui.status("Waiting for your confirmation: nothing is created before it");
      choice.confirm(setup.plan(), "benchmark " + job.name() + " (cluster " + shape.name() + ")", create -> {
        if (!create) {
          setup.clients().close();
          done.countDown();
          ui.cancelled("EC2 benchmark cancelled: nothing was created");
          return;
        }
        ui.log("confirmed: " + setup.plan().cost());
        if (!BenchView.inBackground(workspace, () -> onEc2(job, setup, shape, spec, removed))) {
          setup.clients().close();
          done.countDown();
        }
      });
    });
  }

  private void onEc2(Job job, BackendChoice.Ec2Setup setup, ClusterConfig shape, Ec2Spec spec, BackendChoice.Removed removed) {
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
    job.run(backend, () -> release(backend, setup, shape.name(), removed));
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

  /**
   * Stop: interrupts the instances' creation or the wait for them, or an open-loop sweep, else asks the runner to
   * stop (any thread).
   */
  void stop() {
    stopping = true;
    Thread t = thread;
    if ((provisioning || sweeping) && t != null) {
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
