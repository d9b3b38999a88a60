package org.kvlab.protocols.camu;

import com.google.protobuf.Message;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.kvlab.api.NodeId;
import org.kvlab.api.Params;

/**
 * One partition's links to the others and their switches (thesis §3.4): the ordering pattern of each link (PB, TOM,
 * or in transition), the round messages received on it and not yet consumed, and the rules that switch it — scripted
 * switches, the adaptive rule, and the request/ack exchange (initiated by the lower partition of a link; a request
 * that arrives while the link is in transition waits until it is stable). The round ({@link CamuServer}) reads and
 * advances the transitions; this class decides them.
 */
final class CamuLinks {
  enum Link { PB, TOM, TO_PB, TO_TOM }

  private final int n;
  private final int me;
  private final BiConsumer<NodeId, Message> send;

  final Link[] link;
  final boolean[] exchanging;     // round messages flow on this link (PB, TO_PB once started, TO_TOM until done)
  final boolean[] sentLast;
  final boolean[] gotLast;
  private final boolean[] deferredReq;  // a switch request that arrived while the link was not stable
  private final boolean[] deferredToPb;
  final List<ArrayDeque<PbRound>> inbox = new ArrayList<>();

  // adaptive rule and scripted switches
  private final boolean adaptive;
  private final int window;
  private final int high;
  private final int low;
  private final int[] touched;
  private final boolean[] touchedThisRound;
  private int windowRounds;
  private final List<long[]> script = new ArrayList<>(); // {round, peer, toPb}

  /** The links of partition {@code me} of {@code n} at the start of a run, per {@code params} (see {@link Camu}). */
  CamuLinks(Params params, int n, int me, BiConsumer<NodeId, Message> send) {
    this.n = n;
    this.me = me;
    this.send = send;
    String mode = params.string("mode", "camu");
    adaptive = params.bool("adaptive", false) && mode.equals("camu");
    window = params.intValue("adaptiveWindow", 10);
    high = params.intValue("adaptiveHigh", 75);
    low = params.intValue("adaptiveLow", 25);
    int k = params.intValue("pbPartners", 2);
    link = new Link[n];
    exchanging = new boolean[n];
    sentLast = new boolean[n];
    gotLast = new boolean[n];
    deferredReq = new boolean[n];
    deferredToPb = new boolean[n];
    touched = new int[n];
    touchedThisRound = new boolean[n];
    Set<Integer> explicit = myPbLinks(Camu.pbLinks(params, n));
    for (int q = 0; q < n; q++) {
      inbox.add(new ArrayDeque<>());
      int d = Math.min(Math.floorMod(q - me, n), Math.floorMod(me - q, n));
      boolean pb = mode.equals("pb") || (mode.equals("camu") && (explicit == null ? d <= k : explicit.contains(q)));
      link[q] = q == me ? null : pb ? Link.PB : Link.TOM;
      exchanging[q] = q != me && pb;
    }
    for (Camu.Switch w : Camu.switches(params, n)) {
      if (Math.min(w.a(), w.b()) == me) {
        script.add(new long[] {w.round(), Math.max(w.a(), w.b()), w.toPb() ? 1 : 0});
      }
    }
  }

  /** My PB peers among {@code links} (null if none are given: pbPartners decides). */
  private Set<Integer> myPbLinks(List<int[]> links) {
    if (links == null) {
      return null;
    }
    Set<Integer> out = new HashSet<>();
    for (int[] ab : links) {
      if (ab[0] == me) {
        out.add(ab[1]);
      } else if (ab[1] == me) {
        out.add(ab[0]);
      }
    }
    return out;
  }

  /** A transaction of this round touched partition {@code q} (the adaptive rule's measure). */
  void touched(int q) {
    touchedThisRound[q] = true;
  }

  private boolean stable(int q) {
    return link[q] == Link.PB || link[q] == Link.TOM;
  }

  private boolean switchInProgress() {
    for (int q = 0; q < n; q++) {
      if (q != me && !stable(q)) {
        return true;
      }
    }
    return false;
  }

  /** At the end of round {@code round - 1}: deferred requests, scripted switches due, the adaptive rule. */
  void switching(long round) {
    for (int q = 0; q < n; q++) {
      if (q != me && deferredReq[q] && stable(q)) {
        deferredReq[q] = false;
        onSwitchReq(q, deferredToPb[q]);
      }
    }
    for (Iterator<long[]> it = script.iterator(); it.hasNext(); ) {
      long[] s = it.next();
      int q = (int) s[1];
      if (round >= s[0] && stable(q) && !switchInProgress()) {
        it.remove();
        initiate(q, s[2] == 1);
      }
    }
    if (!adaptive) {
      return;
    }
    for (int q = 0; q < n; q++) {
      if (touchedThisRound[q]) {
        touched[q]++;
        touchedThisRound[q] = false;
      }
    }
    if (++windowRounds < window) {
      return;
    }
    for (int q = me + 1; q < n; q++) { // the lower partition of a link decides for it
      int pct = 100 * touched[q] / window;
      if (!switchInProgress() && link[q] == Link.TOM && pct > high) {
        initiate(q, true);
      } else if (!switchInProgress() && link[q] == Link.PB && pct < low) {
        initiate(q, false);
      }
    }
    Arrays.fill(touched, 0);
    windowRounds = 0;
  }

  private void initiate(int q, boolean toPb) {
    if (toPb == (link[q] == Link.PB)) {
      return;
    }
    if (!toPb) {
      link[q] = Link.TO_TOM;
    }
    send.accept(NodeId.of(0, q), SwitchReq.newBuilder().setFrom(me).setToPb(toPb).build());
  }

  void onSwitchReq(int q, boolean toPb) {
    if (!stable(q)) {
      deferredReq[q] = true;
      deferredToPb[q] = toPb;
      return;
    }
    if (toPb) {
      if (link[q] == Link.TOM) {
        link[q] = Link.TO_PB;
        exchanging[q] = true;
      }
      send.accept(NodeId.of(0, q), SwitchAck.newBuilder().setFrom(me).setToPb(true).build());
    } else if (link[q] == Link.PB) {
      link[q] = Link.TO_TOM;
    }
  }

  void onSwitchAck(int q, boolean toPb) {
    if (toPb && link[q] == Link.TOM) {
      link[q] = Link.TO_PB;
      exchanging[q] = true;
    }
  }

  // ------------------------------------------------------------------------------------------------ durable state

  void save(CamuState.Builder s) {
    for (int q = 0; q < n; q++) {
      s.addLinks(LinkState.newBuilder().setLink(link[q] == null ? -1 : link[q].ordinal()).setExchanging(exchanging[q])
          .setSentLast(sentLast[q]).setGotLast(gotLast[q]).setDeferredReq(deferredReq[q])
          .setDeferredToPb(deferredToPb[q]).addAllInbox(inbox.get(q)));
    }
    for (long[] sw : script) {
      s.addScript(sw[0]).addScript(sw[1]).addScript(sw[2]);
    }
  }

  void restore(CamuState s) {
    for (int q = 0; q < n; q++) {
      LinkState l = s.getLinks(q);
      link[q] = l.getLink() < 0 ? null : Link.values()[l.getLink()];
      exchanging[q] = l.getExchanging();
      sentLast[q] = l.getSentLast();
      gotLast[q] = l.getGotLast();
      deferredReq[q] = l.getDeferredReq();
      deferredToPb[q] = l.getDeferredToPb();
      inbox.get(q).clear();
      inbox.get(q).addAll(l.getInboxList());
    }
    script.clear();
    for (int i = 0; i + 2 < s.getScriptCount(); i += 3) {
      script.add(new long[] {s.getScript(i), s.getScript(i + 1), s.getScript(i + 2)});
    }
  }
}
