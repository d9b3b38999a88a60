package org.kvlab.api;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Waits for a set of acknowledgements, then runs an action once: a quorum round (acks from {@code q}
 * of {@code n} replicas), a dependency check (one answer per dependency), a commit that needs every
 * datacenter. Acks that are not expected, or come twice, are ignored, so a retried request or a
 * duplicated answer cannot complete the wait early.
 *
 * <pre>{@code
 * Acks<NodeId> acks = Acks.all(peers(), () -> req.reply(PutReply.getDefaultInstance()));
 * ...
 * private void onAck(Ack m, NodeId from) { acks.ack(from); }
 * }</pre>
 *
 * <p>For acknowledgements that are replies to a request of this server, use {@link ServerContext#callAll} ("ask N,
 * proceed on k", with timeouts and retries, and a {@code needed == 0} that completes after the handler returns).
 * {@code Acks} stays for hand-made acknowledgements: ones the protocol's own messages carry (COPS's {@code DepOk}s),
 * or keyed by something else than a server. {@code Acks.all} of an empty set runs its action at once, inside the
 * factory method.
 *
 * <p>Deterministic and single-threaded like all protocol state (it uses no timer of its own; combine it
 * with {@link Pending} for a per-request table with timeouts).
 *
 * @param <T> what identifies one acknowledgement (a {@link NodeId}, a dependency, a key)
 */
public final class Acks<T> {
  private final Set<T> missing;
  private final Set<T> received = new LinkedHashSet<>();
  private final int needed;
  private final Runnable whenDone;
  private boolean done;

  private Acks(Collection<? extends T> expected, int needed, Runnable whenDone) {
    this.missing = new LinkedHashSet<>(expected);
    Invariants.check(needed >= 0 && needed <= missing.size(),
        "Acks needs %s of %s distinct acknowledgements: impossible", needed, missing.size());
    this.needed = needed;
    this.whenDone = whenDone;
    if (needed == 0) {
      complete();
    }
  }

  /** Runs {@code whenDone} when every one of {@code expected} has acknowledged (at once if none is expected). */
  public static <T> Acks<T> all(Collection<? extends T> expected, Runnable whenDone) {
    return new Acks<>(expected, new LinkedHashSet<>(expected).size(), whenDone);
  }

  /** Runs {@code whenDone} when any {@code quorum} of {@code expected} have acknowledged. */
  public static <T> Acks<T> quorum(Collection<? extends T> expected, int quorum, Runnable whenDone) {
    return new Acks<>(expected, quorum, whenDone);
  }

  /**
   * Records {@code from}'s acknowledgement. Returns true if this one completed the wait (and ran the
   * action); false if it was unexpected, a duplicate, or the wait is already done.
   */
  public boolean ack(T from) {
    if (done || !missing.remove(from)) {
      return false;
    }
    received.add(from);
    if (received.size() >= needed) {
      complete();
      return true;
    }
    return false;
  }

  private void complete() {
    done = true;
    whenDone.run();
  }

  public boolean done() {
    return done;
  }

  /** Who has not acknowledged yet (read-only view). */
  public Set<T> missing() {
    return Collections.unmodifiableSet(missing);
  }

  /** Who has acknowledged (read-only view, in arrival order). */
  public Set<T> received() {
    return Collections.unmodifiableSet(received);
  }
}
