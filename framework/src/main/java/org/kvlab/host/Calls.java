package org.kvlab.host;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Call;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.QuorumCall;
import org.kvlab.api.Timer;

/**
 * Calls between servers for a {@link ProtocolHost}: the caller's side ({@code call}, {@code callAll}, their timeouts
 * and retries), the table of this node's calls and forwards waiting for an answer (numbered in this run, matched by
 * run and number), and the callee's side (a call runs through the call handler, once while unanswered).
 */
final class Calls {
  private final ProtocolHost host;
  /** This run's calls and forwards waiting for their answers, by number (looked up; iterated in number order only). */
  final HashMap<Long, Outstanding> outstanding = new HashMap<>();
  private final Map<CallKey, RemoteRequest> unanswered = new HashMap<>(); // calls from others being handled here
  private long nextSeq = 1;

  Calls(ProtocolHost host) {
    this.host = host;
  }

  /** The next number of a call or forward of this run. */
  long nextSeq() {
    return nextSeq++;
  }

  /** A call or forward of this node, waiting for its answer under its sequence number. */
  abstract static class Outstanding {
    final long seq;
    final NodeId to;
    Timer timer;

    Outstanding(long seq, NodeId to) {
      this.seq = seq;
      this.to = to;
    }

    abstract void answered(KitFrame f, NodeId from);
  }

  <P extends Message> Call<P> call(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    CallImpl<P> c = newCall(to, request, replyType, timeout);
    c.send(true);
    return c;
  }

  private <P extends Message> CallImpl<P> newCall(NodeId to, Message request, Class<P> replyType, Duration timeout) {
    java.util.Objects.requireNonNull(to, "to");
    Invariants.check(!to.equals(host.env.self()), "server %s called itself (a call goes to another server)", to);
    Invariants.check(timeout != null && !timeout.isNegative() && !timeout.isZero(),
        "a call needs a positive timeout, got %s", timeout);
    host.types.idOf(request.getClass()); // registered types only, as send
    host.types.idOf(replyType);
    return new CallImpl<>(nextSeq(), to, request, replyType, timeout);
  }

  private final class CallImpl<P extends Message> extends Outstanding implements Call<P> {
    final Message request;
    final Class<P> replyType;
    final Duration timeout;
    java.util.function.Consumer<? super P> onReply;
    java.util.function.Consumer<? super org.kvlab.api.CallFailure> onFailure;
    boolean retry;
    boolean done;

    CallImpl(long seq, NodeId to, Message request, Class<P> replyType, Duration timeout) {
      super(seq, to);
      this.request = request;
      this.replyType = replyType;
      this.timeout = timeout;
    }

    /** Sends the request (again) and arms the timeout. */
    void send(boolean first) {
      if (first) {
        outstanding.put(seq, this);
      }
      timer = host.after(timeout, this::timedOut);
      try {
        host.sendKit(to,
            new KitFrame(KitFrame.Kind.CALL, host.run, seq, host.incarnation, request, null, false, false));
      } catch (BackPressureException e) {
        if (first) { // the callbacks are not set yet: decide after the caller's handler returns
          host.deferred.add(() -> {
            if (!done && !retry) {
              fail(org.kvlab.api.CallFailure.Kind.BACK_PRESSURE, e.getMessage());
            }
          });
        }
        // a resend that found the channel full waits for the next timeout
      }
    }

    private void timedOut() {
      if (done) {
        return;
      }
      if (retry) {
        host.env.metrics().count("kit.callRetries");
        send(false);
      } else {
        fail(org.kvlab.api.CallFailure.Kind.TIMEOUT, "no answer from " + to + " to "
            + request.getClass().getSimpleName()
            + " within " + timeout);
      }
    }

    @Override
    void answered(KitFrame f, NodeId from) {
      if (done) {
        return;
      }
      if (f.error() != null) {
        fail(f.unknown() ? org.kvlab.api.CallFailure.Kind.UNKNOWN : org.kvlab.api.CallFailure.Kind.FAILED,
            from + ": " + f.error());
      } else if (!replyType.isInstance(f.body())) {
        fail(org.kvlab.api.CallFailure.Kind.UNKNOWN, from + " answered " + f.body().getClass().getSimpleName()
            + " where " + replyType.getSimpleName() + " was expected");
      } else {
        end();
        if (onReply != null) {
          onReply.accept(replyType.cast(f.body()));
        }
      }
    }

    void fail(org.kvlab.api.CallFailure.Kind kind, String reason) {
      end();
      if (onFailure != null) {
        onFailure.accept(new org.kvlab.api.CallFailure(kind, reason));
      } else {
        host.env.metrics().count("kit.callFailures");
      }
    }

    private void end() {
      done = true;
      outstanding.remove(seq);
      if (timer != null) {
        timer.cancel();
      }
    }

    @Override
    public Call<P> onReply(java.util.function.Consumer<? super P> action) {
      this.onReply = action;
      return this;
    }

    @Override
    public Call<P> onFailure(java.util.function.Consumer<? super org.kvlab.api.CallFailure> action) {
      this.onFailure = action;
      return this;
    }

    @Override
    public Call<P> retryOnTimeout() {
      this.retry = true;
      return this;
    }

    @Override
    public void cancel() {
      if (!done) {
        end();
      }
    }

    @Override
    public boolean done() {
      return done;
    }
  }

  <P extends Message> QuorumCall<P> callAll(Collection<NodeId> to, Message request, Class<P> replyType,
      int needed, Duration timeout) {
    List<NodeId> targets = new ArrayList<>(new java.util.LinkedHashSet<>(to));
    if (needed < 0 || needed > targets.size()) {
      throw new IllegalArgumentException("callAll needs " + needed + " replies from " + targets.size()
          + " distinct servers: impossible. Fix: ask for between 0 and " + targets.size());
    }
    QuorumImpl<P> q = new QuorumImpl<>(targets.size(), needed);
    for (NodeId n : targets) {
      q.members.add(newCall(n, request, replyType, timeout));
    }
    for (CallImpl<P> m : q.members) {
      NodeId n = m.to;
      m.onReply(p -> q.replied(n, p)).onFailure(f -> q.memberFailed(n, f));
      m.send(true);
    }
    if (needed == 0) {
      host.deferred.add(q::complete); // never inside the handler that is still setting the callbacks
    }
    return q;
  }

  private final class QuorumImpl<P extends Message> implements QuorumCall<P> {
    final List<CallImpl<P>> members = new ArrayList<>();
    final int size;
    final int needed;
    final Map<NodeId, P> replies = new java.util.LinkedHashMap<>();
    int failed;
    boolean done;
    java.util.function.Consumer<? super Map<NodeId, P>> onQuorum;
    java.util.function.Consumer<? super org.kvlab.api.CallFailure> onFailure;

    QuorumImpl(int size, int needed) {
      this.size = size;
      this.needed = needed;
    }

    void replied(NodeId from, P reply) {
      if (done) {
        return;
      }
      replies.put(from, reply);
      if (replies.size() >= needed) {
        complete();
      }
    }

    void memberFailed(NodeId from, org.kvlab.api.CallFailure f) {
      if (done) {
        return;
      }
      if (f.kind() == org.kvlab.api.CallFailure.Kind.TIMEOUT) {
        end(new org.kvlab.api.CallFailure(f.kind(), replies.size() + " of " + needed + " replies within the timeout; "
            + f.reason()));
        return;
      }
      failed++;
      if (size - failed < needed) {
        end(new org.kvlab.api.CallFailure(f.kind(), "quorum of " + needed + " of " + size + " impossible: " + failed
            + " could not answer; the last: " + f.reason()));
      }
    }

    void complete() {
      if (done) {
        return;
      }
      stop();
      if (onQuorum != null) {
        onQuorum.accept(java.util.Collections.unmodifiableMap(replies));
      }
    }

    private void end(org.kvlab.api.CallFailure f) {
      stop();
      if (onFailure != null) {
        onFailure.accept(f);
      } else {
        host.env.metrics().count("kit.callFailures");
      }
    }

    private void stop() {
      done = true;
      for (CallImpl<P> m : members) {
        m.cancel();
      }
    }

    @Override
    public QuorumCall<P> onQuorum(java.util.function.Consumer<? super Map<NodeId, P>> action) {
      this.onQuorum = action;
      return this;
    }

    @Override
    public QuorumCall<P> onFailure(java.util.function.Consumer<? super org.kvlab.api.CallFailure> action) {
      this.onFailure = action;
      return this;
    }

    @Override
    public QuorumCall<P> retryOnTimeout() {
      for (CallImpl<P> m : members) {
        m.retryOnTimeout();
      }
      return this;
    }

    @Override
    public void cancel() {
      if (!done) {
        stop();
      }
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public Map<NodeId, P> replies() {
      return java.util.Collections.unmodifiableMap(replies);
    }
  }

  /** The answer to a call or forward of this node: matched by run and number, else dropped. */
  void onAnswer(KitFrame f, NodeId from) {
    Outstanding o = f.run() == host.run ? outstanding.get(f.seq()) : null;
    if (o == null || !o.to.equals(from)
        || (f.kind() == KitFrame.Kind.CALL_REPLY) != (o instanceof CallImpl<?>)) {
      host.env.metrics().count("kit.staleAnswers"); // an earlier incarnation's, a cancelled or answered one
      host.driver.eventDone();
      return;
    }
    host.enter(o instanceof CallImpl<?> ? ProtocolHost.CALL_REPLY : ProtocolHost.FORWARD_REPLY,
        f.body() == null ? -1 : host.types.idOf(f.body().getClass()), from);
    try {
      o.answered(f, from);
    } catch (RuntimeException e) {
      host.driver.failed(o instanceof CallImpl<?> ? "call callback" : "forward answer", e, null);
    }
    host.leave();
  }

  /**
   * A call from another server: handled once while unanswered. A repeat of it (the same caller, run and number, e.g.
   * sent by {@code retryOnTimeout}) that arrives before the answer is dropped, so retries do not pile up waits here;
   * one that arrives after the answer is handled again, as a new call (the first answer may be lost with a crash of
   * either side; keeping every answer for such repeats would need a rule for when to forget it, and a call handler
   * must already be safe to run again, since a restarted callee forgets the calls it answered).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  void onCall(KitFrame f, NodeId from) {
    int t = host.types.idOf(f.body().getClass());
    Handlers.RequestHandler handler = host.callHandlers[t];
    CallKey key = new CallKey(from, f.run(), f.seq());
    if (unanswered.containsKey(key)) {
      host.env.metrics().count("kit.repeatCallsDropped");
      host.driver.eventDone();
      return;
    }
    RemoteRequest req = new RemoteRequest(host, KitFrame.Kind.CALL_REPLY, from, f, t, () -> unanswered.remove(key));
    unanswered.put(key, req);
    if (handler == null) {
      host.enter(ProtocolHost.CALL, t, from);
      req.fail("server " + host.env.self() + " has no call handler for " + host.typeNames[t]);
      host.leave();
      return;
    }
    host.handled[t]++;
    host.enter(ProtocolHost.CALL, t, from);
    try {
      handler.handle(req);
    } catch (RuntimeException e) {
      host.driver.failed("call handler of " + host.typeNames[t], e, req);
    }
    host.leave();
  }

  /** A call as its callee tells it apart from others: the caller, the caller's run and its number for the call. */
  private record CallKey(NodeId from, long run, long seq) {}
}
