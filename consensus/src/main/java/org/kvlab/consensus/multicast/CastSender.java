package org.kvlab.consensus.multicast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvlab.api.Call;
import org.kvlab.api.NodeId;
import org.kvlab.api.ServerContext;
import org.kvlab.api.Timer;
import org.kvlab.consensus.multicast.CastMachine.SendKey;
import org.kvlab.consensus.multicast.proto.CastReply;
import org.kvlab.consensus.multicast.proto.CastSend;

/**
 * The leader's part of a {@link ReplicatedMulticast}: sends every outstanding send of the replicated state to its
 * destination group until that group says it committed it, then has it acknowledged in this group's log (which
 * removes it at every replica). Nothing here is replicated: a replica that becomes leader starts every outstanding
 * send afresh (a re-send; the receivers take repeats), one that stops leading cancels them.
 *
 * <p>Finding the destination's leader: a send goes to the replica of the destination group last believed to lead it
 * (at first its first member). A replica that does not lead answers at once with its own guess, which the next try
 * follows; one that leads answers once the send is committed in its group's log, or that it could not commit it; no
 * answer within the call timeout moves on to the next replica of the group.
 */
final class CastSender {
  /** Proposes the acknowledgement of {@code key} in this group's log; {@code done} learns whether it committed. */
  @FunctionalInterface
  interface Acknowledge {
    void acknowledge(SendKey key, java.util.function.Consumer<Boolean> done);
  }

  /** The first pause before another try (see {@link #MAX_BACKOFF}). */
  static final Duration PAUSE = Duration.ofMillis(20);
  /**
   * After every try without a commit (the destination group elects, is cut off, or named a leader that is not), the
   * pause before the next doubles from {@link #PAUSE} up to this, per send.
   */
  static final Duration MAX_BACKOFF = Duration.ofMillis(640);

  private final ServerContext ctx;
  private final List<List<NodeId>> groups;
  private final CastMachine<?> machine;
  private final Acknowledge acknowledge;
  private final Duration timeout;
  private final String metricPrefix;
  private final int[] guess;
  private final Map<SendKey, Attempt> running = new TreeMap<>();
  private boolean leading;
  private boolean muted; // tests: a leader that committed but did not send yet (it crashes next)
  private boolean noResend; // the mutant (tests): a new leader sends only what is recorded after it took over

  /** One outstanding send being sent: its call or its pause, whichever runs. */
  private static final class Attempt {
    final SendKey key;
    Call<CastReply> call;
    Timer pause;
    int stalled; // tries in a row without progress

    Attempt(SendKey key) {
      this.key = key;
    }

    void cancel() {
      if (call != null) {
        call.cancel();
      }
      if (pause != null) {
        pause.cancel();
      }
    }
  }

  CastSender(ServerContext ctx, List<List<NodeId>> groups, CastMachine<?> machine, Acknowledge acknowledge,
      Duration timeout, String metricPrefix) {
    this.ctx = ctx;
    this.groups = groups;
    this.machine = machine;
    this.acknowledge = acknowledge;
    this.timeout = timeout;
    this.metricPrefix = metricPrefix;
    this.guess = new int[groups.size()];
  }

  /**
   * Brings the sends in line with the replicated state and this replica's role: after every applied operation and
   * on every tick. A replica that starts leading (or installed a snapshot while leading) starts every outstanding
   * send; a leader starts the sends added since and drops the acknowledged ones; a replica that stops leading
   * cancels all.
   */
  void sync(boolean leader) {
    List<SendKey> added = machine.drainAdded();
    List<SendKey> removed = machine.drainRemoved();
    boolean replaced = machine.drainReplaced();
    if (!leader) {
      if (leading) {
        running.values().forEach(Attempt::cancel);
        running.clear();
        leading = false;
      }
      return;
    }
    if (!leading || replaced) {
      leading = true;
      for (SendKey k : new ArrayList<>(running.keySet())) {
        if (!machine.outstanding().containsKey(k)) {
          running.remove(k).cancel();
        }
      }
      for (SendKey k : machine.outstanding().keySet()) {
        if (!running.containsKey(k) && !noResend) {
          ctx.metrics().count(metricPrefix + ".resent");
          start(k);
        }
      }
      return;
    }
    for (SendKey k : removed) {
      Attempt a = running.remove(k);
      if (a != null) {
        a.cancel();
      }
    }
    for (SendKey k : added) {
      if (!running.containsKey(k) && machine.outstanding().containsKey(k)) {
        start(k);
      }
    }
  }

  /** Sends in progress (tests). */
  int running() {
    return running.size();
  }

  /** Tests: from now on this replica sends nothing (a leader that crashes right after its commit). */
  void mute() {
    muted = true;
  }

  /** The mutant for tests: a replica that starts leading does not send what was outstanding before. */
  void noResend() {
    noResend = true;
  }

  private void start(SendKey k) {
    Attempt a = new Attempt(k);
    running.put(k, a);
    attempt(a);
  }

  private boolean current(Attempt a) {
    return running.get(a.key) == a;
  }

  private void attempt(Attempt a) {
    a.pause = null;
    if (!current(a) || muted) {
      return;
    }
    CastSend send = machine.wire(a.key);
    if (send == null) {
      running.remove(a.key);
      return;
    }
    int g = a.key.group();
    NodeId to = groups.get(g).get(guess[g]);
    ctx.metrics().count(metricPrefix + ".sends");
    a.call = ctx.call(to, send, CastReply.class, timeout)
        .onReply(r -> replied(a, g, to, r))
        .onFailure(f -> {
          if (current(a)) {
            moveOn(g, to);
            a.stalled++;
            later(a);
          }
        });
  }

  private void replied(Attempt a, int g, NodeId to, CastReply r) {
    if (!current(a)) {
      return;
    }
    a.call = null;
    if (r.getCommitted()) {
      a.stalled = 0;
      acknowledge.acknowledge(a.key, ok -> {
        if (!ok && current(a)) {
          later(a); // the acknowledgement did not commit: send again (the receiver takes the repeat)
        }
      });
      return;
    }
    int hint = r.getLeader() - 1;
    List<NodeId> members = groups.get(g);
    if (hint >= 0 && hint < members.size() && !members.get(hint).equals(to)) {
      guess[g] = hint;
    } else {
      moveOn(g, to);
      a.stalled++;
    }
    later(a);
  }

  /** The next replica of group {@code g} after {@code to}, unless the guess moved already. */
  private void moveOn(int g, NodeId to) {
    List<NodeId> members = groups.get(g);
    if (members.get(guess[g]).equals(to)) {
      guess[g] = (guess[g] + 1) % members.size();
    }
  }

  private void later(Attempt a) {
    a.call = null;
    long pause = Math.min(MAX_BACKOFF.toMillis(), PAUSE.toMillis() << Math.min(a.stalled, 10));
    a.pause = ctx.after(Duration.ofMillis(pause), () -> attempt(a));
  }
}
