package org.kvlab.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.CallFailure;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.Metrics;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;
import org.kvlab.api.Server;
import org.kvlab.api.Timer;
import org.kvlab.api.Topology;
import org.kvlab.store.InMemoryStore;
import org.kvlab.store.KitState;
import org.kvlab.store.VersionedStore;
import org.kvlab.testing.PrimaryBackupKit;
import org.kvlab.testing.kitpb.PbApplied;
import org.kvlab.testing.kitpb.PbApply;
import org.kvlab.testing.kitpb.PbNumber;
import org.kvlab.testing.kitpb.PbRecord;
import org.kvlab.testing.kitpb.PbState;
import org.slf4j.helpers.NOPLogger;

/** The host alone, with a hand-driven driver: what the drivers' tests cannot force (full channels, stale ids). */
class ProtocolHostTest {
  private static final NodeId SELF = NodeId.of(0, 0);
  private static final NodeId PEER = NodeId.of(1, 0);
  private static final NodeId OTHER = NodeId.of(2, 0);

  /** Sends and timers recorded for the test to inspect and fire. */
  static final class FakeDriver implements HostDriver {
    final List<Object[]> sent = new ArrayList<>(); // {to, KitFrame or Message}
    final List<Runnable> timers = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    final KitState state = KitState.memory();
    long micros = 1_000_000;
    int room = Integer.MAX_VALUE;
    int events;

    @Override
    public void send(NodeId to, Message message) {
      check(to);
      sent.add(new Object[] {to, message});
    }

    @Override
    public void sendKit(NodeId to, KitFrame frame) {
      check(to);
      sent.add(new Object[] {to, frame});
    }

    private void check(NodeId to) {
      if (room == 0) {
        throw new BackPressureException("channel to " + to + " is full");
      }
    }

    @Override
    public int room(NodeId to) {
      return room;
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
      boolean[] cancelled = new boolean[1];
      timers.add(() -> {
        if (!cancelled[0]) {
          task.run();
        }
      });
      return () -> cancelled[0] = true;
    }

    @Override
    public Timer scheduleRepeating(long firstNanos, long periodNanos, Runnable task) {
      return schedule(firstNanos, task);
    }

    @Override
    public long timerNanos() {
      return 0;
    }

    @Override
    public void offload(Runnable work, Runnable done) {
      work.run();
      timers.add(done); // a later event, when the test fires the timers
    }

    @Override
    public void failed(String where, RuntimeException e, HostRequest request) {
      failures.add(where + ": " + e.getMessage());
    }

    @Override
    public void eventDone() {
      events++;
    }

    @Override
    public KitState state() {
      return state;
    }

    @Override
    public void stateWritten() {}

    @Override
    public boolean holdSendsBehindState() {
      return false;
    }

    void fireTimers() {
      List<Runnable> due = new ArrayList<>(timers);
      timers.clear();
      due.forEach(Runnable::run);
    }

    KitFrame lastKit() {
      return (KitFrame) sent.get(sent.size() - 1)[1];
    }
  }

  private final FakeDriver driver = new FakeDriver();

  private ProtocolHost host(Consumer<Handlers> register, long incarnation) {
    VersionedStore<Message> store = castStore(new InMemoryStore<>(new PrimaryBackupKit().record()));
    HostDriver.Env env = new HostDriver.Env(SELF, new Topology(3, 1), new Params(Map.of()), () -> driver.micros / 1000,
        new Random(1), store, Metrics.NOP, NOPLogger.NOP_LOGGER);
    ProtocolHost host = new ProtocolHost(driver, env, PrimaryBackupKit.MESSAGES, incarnation, incarnation);
    host.bind(new Server<PbRecord>() {
      @Override
      protected void register(Handlers on) {
        register.accept(on);
      }
    });
    host.start();
    return host;
  }

  @SuppressWarnings("unchecked")
  private static VersionedStore<Message> castStore(VersionedStore<?> s) {
    return (VersionedStore<Message>) s;
  }

  private static final PbApply APPLY = PbApply.newBuilder().setKey("k").setVer(1).build();

  @Test
  void waitUntil_runsAtOnceIfTrue_elseAfterTheEventThatMakesItTrue_inOrder_withoutTimers() {
    long[] x = {0};
    List<String> ran = new ArrayList<>();
    ProtocolHost host = host(on -> on.message(PbNumber.class, (m, from) -> x[0] = m.getN()), 1);
    host.waitUntil(() -> true, () -> ran.add("now"));
    assertEquals(List.of("now"), ran);
    host.waitUntil(() -> x[0] >= 2, () -> ran.add("b"));
    host.waitUntil(() -> x[0] >= 1, () -> ran.add("a"));
    host.waitUntil(() -> ran.contains("a"), () -> ran.add("after a")); // made true by another wait's action
    assertTrue(driver.timers.isEmpty(), "no poll");
    int t = PrimaryBackupKit.MESSAGES.idOf(PbNumber.class);
    host.onMessage(t, PbNumber.newBuilder().setN(1).build(), PEER);
    assertEquals(List.of("now", "a", "after a"), ran);
    host.onMessage(t, PbNumber.newBuilder().setN(5).build(), PEER);
    assertEquals(List.of("now", "a", "after a", "b"), ran, "each action once");
    host.onMessage(t, PbNumber.newBuilder().setN(6).build(), PEER);
    assertEquals(4, ran.size());
  }

  @Test
  void waitUntil_timesOut_andACancelledWaitNeverRuns() {
    List<String> ran = new ArrayList<>();
    ProtocolHost host = host(on -> {}, 1);
    host.waitUntil(() -> false, Duration.ofMillis(5), () -> ran.add("action"), () -> ran.add("timeout"));
    host.waitUntil(() -> false, () -> ran.add("cancelled")).cancel();
    driver.fireTimers();
    assertEquals(List.of("timeout"), ran);
  }

  @Test
  void callAll_withNoneNeeded_answersAfterTheHandler_notInsideCallAll() {
    List<String> ran = new ArrayList<>();
    ProtocolHost host = host(on -> {}, 1);
    host.after(Duration.ZERO, () -> {
      var q = host.callAll(List.of(PEER, OTHER), APPLY, PbApplied.class, 0, Duration.ofSeconds(1));
      ran.add("callAll returned");
      q.onQuorum(m -> ran.add("quorum " + m.size()));
    });
    driver.fireTimers();
    assertEquals(List.of("callAll returned", "quorum 0"), ran);
  }

  @Test
  void call_onAFullChannel_failsWithBackPressure_afterTheHandler_unlessRetried() {
    List<CallFailure> failures = new ArrayList<>();
    ProtocolHost host = host(on -> {}, 1);
    driver.room = 0;
    host.after(Duration.ZERO, () -> {
      host.call(PEER, APPLY, PbApplied.class, Duration.ofSeconds(1)).onFailure(failures::add);
      host.call(PEER, APPLY, PbApplied.class, Duration.ofSeconds(1)).onFailure(failures::add).retryOnTimeout();
    });
    driver.fireTimers();
    assertEquals(1, failures.size(), failures.toString());
    assertEquals(CallFailure.Kind.BACK_PRESSURE, failures.get(0).kind());
    driver.room = Integer.MAX_VALUE;
    driver.fireTimers(); // the retried call's timeout: sent again
    assertEquals(1, driver.sent.size(), "the retried call was sent once the channel had room");
  }

  @Test
  void replies_toAnEarlierIncarnation_orToAnAnsweredCall_areDropped_andAMismatchedTypeIsUnknown() {
    List<String> ran = new ArrayList<>();
    ProtocolHost host = host(on -> {}, 2);
    host.after(Duration.ZERO, () -> host.call(PEER, APPLY, PbApplied.class, Duration.ofSeconds(1))
        .onReply(r -> ran.add("reply " + r.getVer())).onFailure(f -> ran.add(f.kind().name())));
    driver.fireTimers();
    KitFrame call = driver.lastKit();
    assertEquals(KitFrame.Kind.CALL, call.kind());
    PbApplied applied = PbApplied.newBuilder().setVer(7).build();
    host.onKit(new KitFrame(KitFrame.Kind.CALL_REPLY, 1, call.seq(), 1, applied, null, false, false), PEER);
    assertEquals(List.of(), ran, "the run before (incarnation 1) asked nothing of this id");
    host.onKit(new KitFrame(KitFrame.Kind.CALL_REPLY, 2, call.seq(), 1, applied, null, false, false), PEER);
    host.onKit(new KitFrame(KitFrame.Kind.CALL_REPLY, 2, call.seq(), 1, applied, null, false, false), PEER);
    assertEquals(List.of("reply 7"), ran, "matched once");
    host.after(Duration.ZERO, () -> host.call(PEER, APPLY, PbApplied.class, Duration.ofSeconds(1))
        .onFailure(f -> ran.add(f.kind().name())));
    driver.fireTimers();
    host.onKit(new KitFrame(KitFrame.Kind.CALL_REPLY, 2, driver.lastKit().seq(), 1, PbNumber.getDefaultInstance(), null,
        false, false), PEER);
    assertEquals(List.of("reply 7", "UNKNOWN"), ran);
  }

  @Test
  void aCall_isAnsweredByTheCallHandler_throughTheRequestApi() {
    ProtocolHost host = host(on -> on.call(PbApply.class, r -> r.fail("no")), 1);
    host.onKit(new KitFrame(KitFrame.Kind.CALL, 99, 5, 3, APPLY, null, false, false), PEER);
    KitFrame answer = driver.lastKit();
    assertEquals(KitFrame.Kind.CALL_REPLY, answer.kind());
    assertEquals(99, answer.run());
    assertEquals(5, answer.seq());
    assertEquals("no", answer.error());
    assertFalse(answer.unknown());
  }

  @Test
  void aRepeatedCall_isDroppedWhileTheFirstIsUnanswered_andHandledAgainAfterTheAnswer() {
    List<org.kvlab.api.Request<PbApply>> handling = new ArrayList<>();
    ProtocolHost host = host(on -> on.call(PbApply.class, handling::add), 1);
    KitFrame call = new KitFrame(KitFrame.Kind.CALL, 99, 5, 3, APPLY, null, false, false);
    host.onKit(call, PEER);
    host.onKit(call, PEER); // retryOnTimeout's repeat: the same caller, run and number
    assertEquals(1, handling.size(), "a repeat of an unanswered call piles up no second wait");
    host.onKit(new KitFrame(KitFrame.Kind.CALL, 99, 5, 3, APPLY, null, false, false), OTHER);
    host.onKit(new KitFrame(KitFrame.Kind.CALL, 100, 5, 3, APPLY, null, false, false), PEER);
    assertEquals(3, handling.size(), "another caller's, or another run's, call of the same number is a new call");
    handling.get(0).reply(PbApplied.getDefaultInstance());
    assertEquals(1, driver.sent.size(), "one answer for the first call");
    host.onKit(call, PEER);
    assertEquals(4, handling.size(), "a repeat after the answer runs the handler again");
    handling.get(3).reply(PbApplied.getDefaultInstance());
    assertEquals(5, driver.lastKit().seq());
    assertEquals(2, driver.sent.size());
  }

  @Test
  void aCallHandler_seesItsCaller_andAForwardedRequestHasNone() {
    List<java.util.Optional<NodeId>> callers = new ArrayList<>();
    ProtocolHost host = host(on -> {
      on.call(PbApply.class, r -> {
        callers.add(r.from());
        r.reply(PbApplied.getDefaultInstance());
      });
      on.request(PbApply.class, r -> {
        callers.add(r.from());
        r.reply(PbApplied.getDefaultInstance());
      });
    }, 1);
    host.onKit(new KitFrame(KitFrame.Kind.CALL, 99, 5, 3, APPLY, null, false, false), PEER);
    host.onKit(new KitFrame(KitFrame.Kind.FORWARD, 99, 6, 3, APPLY, null, false, false), OTHER);
    assertEquals(List.of(java.util.Optional.of(PEER), java.util.Optional.empty()), callers);
  }

  @Test
  void slot_isRestoredByAHostOnTheSameState_andIncarnationsCount() {
    ProtocolHost first = host(on -> {}, KitState.nextIncarnation(driver.state));
    first.after(Duration.ZERO, () -> first.slot(PbState.getDefaultInstance()).set(PbState.newBuilder().setVer(9).build()));
    driver.fireTimers();
    ProtocolHost second = host(on -> {}, KitState.nextIncarnation(driver.state));
    assertEquals(9, second.slot(PbState.getDefaultInstance()).get().getVer());
    assertEquals(1, first.incarnation());
    assertEquals(2, second.incarnation());
  }

  @Test
  void slotMap_isRestoredByAHostOnTheSameState_withItsRemovals_andANameHoldsOneType() {
    ProtocolHost first = host(on -> {}, KitState.nextIncarnation(driver.state));
    first.after(Duration.ZERO, () -> {
      org.kvlab.api.SlotMap<PbState> m = first.slotMap("acceptor", PbState.getDefaultInstance());
      m.put("x/1", PbState.newBuilder().setVer(1).build());
      m.put("x/2", PbState.newBuilder().setVer(2).build());
      m.put("y/1", PbState.newBuilder().setVer(3).build());
      m.remove("x/1");
      m.put("y/1", PbState.newBuilder().setVer(4).build());
    });
    driver.fireTimers();
    assertEquals(2, driver.state.scan("map/acceptor/").size(), "written at the end of the turn");
    ProtocolHost second = host(on -> {}, KitState.nextIncarnation(driver.state));
    org.kvlab.api.SlotMap<PbState> m = second.slotMap("acceptor", PbState.getDefaultInstance());
    assertEquals(List.of("x/2", "y/1"), List.copyOf(m.keys()));
    assertEquals(4, m.get("y/1").getVer());
    assertEquals(null, m.get("x/1"));
    assertThrows(IllegalArgumentException.class, () -> second.slotMap("acceptor", PbApply.getDefaultInstance()));
    assertThrows(IllegalArgumentException.class, () -> second.slotMap("a/b", PbState.getDefaultInstance()));
  }

  @Test
  void duplicateHandlersAndNonPositivePeriods_areRefused() {
    assertThrows(InvariantViolation.class, () -> host(on -> {
      on.call(PbApply.class, r -> {});
      on.call(PbApply.class, r -> {});
    }, 1));
    assertThrows(InvariantViolation.class, () -> host(on -> on.every(Duration.ZERO, () -> {}), 1));
  }
}
