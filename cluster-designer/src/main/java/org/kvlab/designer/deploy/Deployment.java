package org.kvlab.designer.deploy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kvlab.cluster.BackendException;
import org.kvlab.cluster.ClusterBackend;
import org.kvlab.cluster.ClusterListener;
import org.kvlab.cluster.ClusterRef;
import org.kvlab.cluster.StartOptions;

/**
 * One deployment made from the Deploy tab: the backend the user chose, the cluster it placed, deployed and started,
 * a status poll, and the stop. Every backend call runs on this deployment's own worker thread (the backend API
 * wants calls from one thread), never on the JavaFX thread; {@link #close(Duration)} (the window closes) stops
 * what was started and, if the worker does not finish in time, kills it ({@link ClusterBackend#destroyStarted()}).
 */
final class Deployment {
  /** Where a deployment is in its life. */
  enum Phase { DEPLOYING, RUNNING, STOPPING, STOPPED, FAILED }

  /** What the deployment tells the tab; called from worker threads (implementations hop to the FX thread). */
  interface Ui {
    void phase(Deployment d, Phase phase, String text);

    void nodes(Deployment d, List<NodeRow> rows);

    void failed(Deployment d, String message);

    void log(String line);

    void progress(String line);

    /** EC2: the resources deleted when the backend was closed (instances, security groups, key pairs...). */
    void teardown(Deployment d, String cluster, List<String> removed);
  }

  /** How to get a backend and a cluster on it; runs on the worker thread. */
  interface Plan {
    /** Makes the backend (cheap: nothing is created or started yet). */
    ClusterBackend create(ClusterListener listener) throws Exception;

    /** Makes the machines the cluster runs on, if the backend makes machines (EC2: creates the instances). */
    default void provision(ClusterBackend backend) throws Exception {}

    /** The cluster with the backend's addresses, written to a file the backend can upload. */
    ClusterRef place(ClusterBackend backend) throws Exception;

    /** All servers of a host in one JVM (the local backend only). */
    default boolean singleJvm() {
      return false;
    }
  }

  static final Duration START_WAIT = Duration.ofSeconds(90);
  static final Duration STOP_GRACE = Duration.ofSeconds(10);
  static final Duration POLL = Duration.ofSeconds(1);

  private final String backendName;
  private final String clusterName;
  private final Ui ui;
  private final ScheduledExecutorService worker;
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private final NodeRow.LoadMeter load = new NodeRow.LoadMeter();
  private final BackendChoice.Removed listener;
  private volatile ClusterBackend backend;
  private volatile ClusterRef ref;
  private volatile boolean started;
  private volatile boolean released;
  private volatile boolean provisioning;
  private volatile Phase phase = Phase.DEPLOYING;
  private Future<?> deployTask;
  private Future<?> poll;
  private boolean stopRequested;

  Deployment(String backendName, String clusterName, Ui ui) {
    this.backendName = backendName;
    this.clusterName = clusterName;
    this.ui = ui;
    ScheduledThreadPoolExecutor w = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "deploy-" + backendName);
      t.setDaemon(true);
      return t;
    });
    w.setRemoveOnCancelPolicy(true);
    this.worker = w;
    this.listener = new BackendChoice.Removed(ui::progress, ui::log);
  }

  /** The listener the backend (and an EC2 provisioner, through {@code Ec2Backend.forward}) reports to. */
  ClusterListener listener() {
    return listener;
  }

  String backendName() {
    return backendName;
  }

  /** The name of the cluster being deployed. */
  String clusterName() {
    return clusterName;
  }

  Phase phase() {
    return phase;
  }

  /** The backend, once made. */
  ClusterBackend backend() {
    return backend;
  }

  /** The cluster as placed on the backend, once it is. */
  ClusterRef cluster() {
    return ref;
  }

  /** Deploys and starts the cluster of {@code plan} on the worker thread. */
  synchronized void start(Plan plan) {
    deployTask = worker.submit(() -> deploy(plan));
  }

  private void deploy(Plan plan) {
    try {
      ClusterBackend b = plan.create(listener);
      backend = b;
      setPhase(Phase.DEPLOYING, "deploying on " + backendName);
      provisioning = true;
      try {
        plan.provision(b);
      } finally {
        provisioning = false;
        Thread.interrupted(); // a stop's interrupt is handled below through the cancelled flag
      }
      if (cancelled.get()) {
        throw new BackendException("stopped before the cluster was deployed", null, true);
      }
      ClusterRef r = plan.place(b);
      ref = r;
      ui.nodes(this, r.config().servers().stream().map(s -> NodeRow.planned(s, NodeRow.STARTING)).toList());
      ui.progress("deploying " + r.config().name() + " to " + backendName);
      b.deploy(r);
      ui.progress("starting " + r.config().servers().size() + " servers of " + r.config().name());
      if (cancelled.get()) {
        throw new BackendException("stopped before the servers were started", null, true);
      }
      started = true;
      b.start(r, new StartOptions(START_WAIT, plan.singleJvm(), null, cancelled::get));
      if (cancelled.get()) {
        return; // the stop task, queued behind this one, stops it
      }
      setPhase(Phase.RUNNING, "running on " + backendName);
      ui.progress(r.config().servers().size() + " servers of " + r.config().name() + " answer and are connected");
      synchronized (this) {
        if (!stopRequested) {
          poll = worker.scheduleWithFixedDelay(this::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
    } catch (Exception | LinkageError e) { // (a class missing from the class path must not leave it "deploying")
      boolean cancel = cancelled.get() || (e instanceof BackendException be && be.cancelled());
      started = false; // a backend whose start failed has stopped what it started
      release();
      ClusterRef r = ref;
      if (r != null) { // not "starting" any more: nothing of this deployment runs
        String why = cancel ? "" : "the deploy failed: see the message above";
        ui.nodes(this, r.config().servers().stream().map(s -> NodeRow.planned(s, NodeRow.DOWN, why)).toList());
      }
      if (cancel) {
        ui.progress("stopped before the cluster was up");
        setPhase(Phase.STOPPED, "stopped before the cluster was up");
      } else {
        ui.failed(this, message(e));
        ui.progress("deploying on " + backendName + " failed: nothing of it runs");
        setPhase(Phase.FAILED, "deploying on " + backendName + " failed");
      }
      worker.shutdown(); // nothing runs any more: a stop queued behind this task still runs, then the thread ends
    }
  }

  private void poll() {
    ClusterBackend b = backend;
    ClusterRef r = ref;
    if (b == null || r == null || cancelled.get()) {
      return;
    }
    try {
      ui.nodes(this, NodeRow.of(b.status(r), load));
    } catch (RuntimeException e) {
      ui.log("status poll failed: " + message(e));
    }
  }

  /** Stops what this deployment started (the Stop button); returns at once, the worker does it. */
  synchronized void stop() {
    if (stopRequested) {
      return;
    }
    stopRequested = true;
    cancelled.set(true);
    if (poll != null) {
      poll.cancel(false);
    }
    if (phase == Phase.DEPLOYING || phase == Phase.RUNNING) {
      setPhase(Phase.STOPPING, "stopping");
    }
    if (provisioning && deployTask != null) {
      deployTask.cancel(true); // EC2 waits for instances and SSH: an interrupt ends the wait (what exists is deleted)
    }
    try {
      worker.execute(this::stopNow);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the deploy failed and released everything already
    }
  }

  private void stopNow() {
    ClusterBackend b = backend;
    ClusterRef r = ref;
    if (b != null && r != null && started && !released) {
      ui.progress("stopping the " + r.config().servers().size() + " servers of " + r.config().name());
      try {
        b.stop(r, STOP_GRACE);
      } catch (BackendException e) {
        ui.failed(this, message(e));
      }
      started = false;
      if (!"ec2".equals(b.name())) {
        try {
          ui.nodes(this, NodeRow.of(b.status(r), load));
        } catch (RuntimeException e) {
          ui.log("status after the stop failed: " + message(e));
        }
      } else {
        ui.nodes(this, r.config().servers().stream().map(s -> NodeRow.planned(s, NodeRow.DOWN)).toList());
      }
    }
    boolean wasReleased = released;
    release();
    if (!wasReleased || phase == Phase.STOPPING) {
      setPhase(Phase.STOPPED, "stopped");
    }
    ui.progress("stopped");
    worker.shutdown();
  }

  /** Closes the backend once (EC2: deletes every resource of the cluster) and reports what was removed. */
  private void release() {
    if (released) {
      return;
    }
    released = true;
    ClusterBackend b = backend;
    if (b == null) {
      return;
    }
    try {
      b.close();
    } catch (BackendException e) {
      ui.failed(this, message(e));
    }
    List<String> gone = listener.list();
    if ("ec2".equals(b.name())) {
      ui.teardown(this, clusterName, gone);
    }
  }

  /**
   * The window closes: stops what was started and waits up to {@code wait} for it (EC2: for the teardown too);
   * then kills whatever is still running.
   */
  void close(Duration wait) {
    stop();
    worker.shutdown();
    try {
      if (!worker.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        ClusterBackend b = backend;
        if (b != null) {
          b.destroyStarted();
        }
        worker.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ClusterBackend b = backend;
      if (b != null) {
        b.destroyStarted();
      }
      worker.shutdownNow();
    }
  }

  /** True once everything this deployment started is stopped (or was never started). */
  boolean finished() {
    return phase == Phase.STOPPED || phase == Phase.FAILED;
  }

  private void setPhase(Phase p, String text) {
    phase = p;
    ui.phase(this, p, text);
  }

  static String message(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }
}
