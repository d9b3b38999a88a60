package org.kvlab.host;

import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.Handlers;
import org.kvlab.api.Invariants;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;

/**
 * Forwards for a {@link ProtocolHost}: a client request handed to another server, which runs it through its own
 * request handler (as if its client had sent it) and sends the reply, failure or unknown outcome back to the
 * original client; unknown on timeout or when the other server restarts before answering.
 */
final class Forwards {
  private final ProtocolHost host;
  private final Calls calls;
  private final Map<NodeId, Long> peerIncarnations = new HashMap<>();

  Forwards(ProtocolHost host, Calls calls) {
    this.host = host;
    this.calls = calls;
  }

  /**
   * The driver learnt that {@code peer} runs incarnation {@code incarnation} (the runtime from the peer's Welcome,
   * the simulator at its start): forwards it held from an earlier incarnation are answered unknown.
   */
  void peerStarted(NodeId peer, long incarnation) {
    Long before = peerIncarnations.put(peer, incarnation);
    boolean restarted = before != null && before != incarnation;
    List<ForwardImpl> lost = null;
    for (Calls.Outstanding o : calls.outstanding.values()) {
      if (o instanceof ForwardImpl f && f.to.equals(peer)) {
        if (f.targetIncarnation == 0) {
          f.targetIncarnation = incarnation;
        } else if (restarted && f.targetIncarnation != incarnation) {
          (lost == null ? lost = new ArrayList<>() : lost).add(f);
        }
      }
    }
    if (lost == null) {
      return;
    }
    lost.sort((a, b) -> Long.compare(a.seq, b.seq)); // deterministic order
    host.enter(ProtocolHost.PEER_RESTART, -1, peer);
    for (ForwardImpl f : lost) {
      calls.outstanding.remove(f.seq);
      f.timer.cancel();
      try {
        f.original.unknown("server " + peer + " restarted (incarnation " + before + " -> " + incarnation
            + ") before answering the forwarded " + host.typeNames[f.original.type()] + "; it may have taken effect");
      } catch (RuntimeException e) {
        host.driver.failed("forward to " + peer, e, null);
      }
    }
    host.leave();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  void onForwarded(KitFrame f, NodeId from) {
    int t = host.types.idOf(f.body().getClass());
    Handlers.RequestHandler handler = host.requestHandlers[t];
    RemoteRequest req = new RemoteRequest(host, KitFrame.Kind.FORWARD_REPLY, from, f, t, null);
    host.enter(ProtocolHost.FORWARDED, t, from);
    if (handler == null) {
      req.fail("server " + host.env.self() + " has no handler for the forwarded request " + host.typeNames[t]);
    } else {
      host.handled[t]++;
      try {
        handler.handle(req);
      } catch (RuntimeException e) {
        host.driver.failed("handler of " + host.typeNames[t] + " forwarded by " + from, e, req);
      }
    }
    host.leave();
  }

  <Q extends Message> void forward(NodeId to, Request<Q> request, Duration timeout) {
    if (!(request instanceof HostRequest original)) {
      throw new IllegalArgumentException("forward takes a request this server is handling, not a " + request.getClass()
          .getName());
    }
    Invariants.check(!to.equals(host.env.self()), "server %s forwarded a request to itself", to);
    Invariants.check(timeout != null && !timeout.isNegative() && !timeout.isZero(),
        "a forward needs a positive timeout, got %s", timeout);
    Invariants.check(!original.answered(), "forwarding request %s, which was answered already",
        host.name(original.type()));
    long seq = calls.nextSeq();
    Long known = peerIncarnations.get(to);
    ForwardImpl f = new ForwardImpl(seq, to, original, known == null ? 0 : known);
    try {
      host.sendKit(to, new KitFrame(KitFrame.Kind.FORWARD, host.run, seq, host.incarnation, original.body(), null,
          false, false));
    } catch (BackPressureException e) {
      original.fail("server " + host.env.self() + " could not forward " + host.name(original.type()) + " to " + to
          + ": "
          + e.getMessage());
      return;
    }
    calls.outstanding.put(seq, f);
    f.timer = host.after(timeout, () -> {
      if (calls.outstanding.remove(seq) != null) {
        original.unknown("no answer from " + to + " within " + timeout + " to the forwarded "
            + host.name(original.type())
            + "; it may still take effect");
      }
    });
  }

  private final class ForwardImpl extends Calls.Outstanding {
    final HostRequest original;
    long targetIncarnation; // 0: not known when it was sent

    ForwardImpl(long seq, NodeId to, HostRequest original, long targetIncarnation) {
      super(seq, to);
      this.original = original;
      this.targetIncarnation = targetIncarnation;
    }

    @Override
    void answered(KitFrame f, NodeId from) {
      calls.outstanding.remove(seq);
      timer.cancel();
      if (f.error() == null) {
        original.reply(f.body());
      } else if (f.overloaded()) {
        original.refuseOverloaded(f.error());
      } else if (f.unknown()) {
        original.unknown(f.error());
      } else {
        original.fail(f.error());
      }
    }
  }
}
