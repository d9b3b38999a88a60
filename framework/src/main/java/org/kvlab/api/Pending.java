package org.kvlab.api;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Per-request state of one server, keyed by an id this table hands out: what a protocol keeps while a
 * request waits for other servers (a forwarded client request, a quorum round, a dependency check).
 *
 * <p>For a request another server answers, use the kit instead: {@link ServerContext#forward} hands a client request
 * to another server and brings its answer back, {@link ServerContext#call} and {@link ServerContext#callAll} match
 * replies for you, with ids tied to the incarnation. {@code Pending} stays for state under ids of a protocol's own.
 *
 * <p>Typical use, forwarding a client request to another server and answering it from there:
 * <pre>{@code
 * long id = forwards.add(req);                       // keep the Request
 * send(primary, Forward.newBuilder().setId(id).setPut(req.body()).build());
 * ...
 * private void onForwarded(ForwardReply m, NodeId from) {
 *   Request<PutReq> req = forwards.remove(m.getId());  // null: unknown id (answered, timed out, or lost in a crash)
 *   if (req != null) req.reply(m.getReply());
 * }
 * }</pre>
 *
 * <p>Ids start at 1 and grow by one per {@link #add}, so runs replay exactly in the simulator. The table
 * lives in memory: a crash loses it with the requests it holds (see docs/writing-a-protocol.md), and a
 * restarted server starts again from id 1, so a reply that crosses a restart may name an id of the new
 * incarnation: put something in the reply that lets the handler recognise its own request (the key,
 * the request's version) when that matters. Like all protocol state it is used from the node's one
 * thread only; timeouts run on that thread through the server's context.
 *
 * @param <S> the state kept per request
 */
public final class Pending<S> {
  private final ServerContext context;
  private final Map<Long, Entry<S>> entries = new LinkedHashMap<>();
  private long nextId = 1;

  private record Entry<S>(S state, Timer timer) {}

  /** A table whose timeouts (if any) use {@code context}'s timers; pass {@code context()} from a server's {@code onStart}. */
  public Pending(ServerContext context) {
    this.context = context;
  }

  /** Keeps {@code state} until {@link #remove}; returns its id. */
  public long add(S state) {
    long id = nextId++;
    entries.put(id, new Entry<>(state, null));
    return id;
  }

  /**
   * Keeps {@code state} for at most {@code timeout}: if it is still here then, it is removed and
   * {@code onTimeout} runs with it (e.g. {@code req -> req.unknown("no answer from the primary")}).
   */
  public long add(S state, Duration timeout, Consumer<? super S> onTimeout) {
    long id = nextId++;
    Timer timer = context.after(timeout, () -> {
      Entry<S> e = entries.remove(id);
      if (e != null) {
        onTimeout.accept(e.state());
      }
    });
    entries.put(id, new Entry<>(state, timer));
    return id;
  }

  /** The state of {@code id}, or null if it is not (or no longer) pending. */
  public S get(long id) {
    Entry<S> e = entries.get(id);
    return e == null ? null : e.state();
  }

  /** Removes and returns the state of {@code id} (cancelling its timeout), or null if it is not pending. */
  public S remove(long id) {
    Entry<S> e = entries.remove(id);
    if (e == null) {
      return null;
    }
    if (e.timer() != null) {
      e.timer().cancel();
    }
    return e.state();
  }

  public int size() {
    return entries.size();
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The pending states, oldest first (read-only). */
  public Collection<S> values() {
    return Collections.unmodifiableCollection(entries.values().stream().map(Entry::state).toList());
  }
}
