package org.kvlab.check;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.kvlab.history.History;
import org.kvlab.history.Operation;
import org.kvlab.history.Operation.Outcome;
import org.kvlab.history.Operation.Type;

/**
 * Hand-built histories for checker tests. Ids are assigned in call order; unless {@link Session#at} is used, each
 * operation gets its own 10µs slot after the previous one, so the builder's order is also real-time order.
 *
 * <pre>
 * HistoryBuilder h = new HistoryBuilder();
 * HistoryBuilder.Session alice = h.session(0, 0);   // session 0 in dc0
 * long p = alice.put("photo", "p1");
 * long g = bob.get("photo", null);                 // null = returned nothing (initial state)
 * </pre>
 */
final class HistoryBuilder {
  private final List<Operation> ops = new ArrayList<>();
  private long clock;
  private Long nextInvoke;
  private Long nextComplete;

  Session session(int session, int dc) {
    return new Session(session, dc);
  }

  History build() {
    return new History(ops);
  }

  private long add(int session, int dc, Type type, String key, String value, Map<String, Optional<ByteString>> reads,
      Outcome outcome) {
    long id = ops.size();
    long invoke;
    long complete;
    if (nextInvoke != null) {
      invoke = nextInvoke;
      complete = nextComplete;
      nextInvoke = null;
      nextComplete = null;
    } else {
      invoke = clock + 1;
      complete = clock + 10;
    }
    clock = Math.max(clock, complete);
    ops.add(new Operation(id, session, dc, type, key, value == null ? null : ByteString.copyFromUtf8(value),
        outcome == Outcome.OK ? reads : null, invoke, complete, outcome, outcome == Outcome.OK ? null : "test"));
    return id;
  }

  private static Optional<ByteString> opt(String v) {
    return v == null ? Optional.empty() : Optional.of(ByteString.copyFromUtf8(v));
  }

  final class Session {
    final int session;
    final int dc;

    Session(int session, int dc) {
      this.session = session;
      this.dc = dc;
    }

    /** The next operation's invocation and completion times. */
    Session at(long invoke, long complete) {
      nextInvoke = invoke;
      nextComplete = complete;
      return this;
    }

    long put(String key, String value) {
      return add(session, dc, Type.PUT, key, value, null, Outcome.OK);
    }

    long putInfo(String key, String value) {
      return add(session, dc, Type.PUT, key, value, null, Outcome.INFO);
    }

    long putFail(String key, String value) {
      return add(session, dc, Type.PUT, key, value, null, Outcome.FAIL);
    }

    /** A completed GET that returned {@code value} (null: nothing). */
    long get(String key, String value) {
      Map<String, Optional<ByteString>> reads = new LinkedHashMap<>();
      reads.put(key, opt(value));
      return add(session, dc, Type.GET, key, null, Collections.unmodifiableMap(reads), Outcome.OK);
    }

    long getInfo(String key) {
      return add(session, dc, Type.GET, key, null, null, Outcome.INFO);
    }

    /** A completed ROTX; arguments alternate key, value (null: nothing). */
    long rotx(String... keyValues) {
      Map<String, Optional<ByteString>> reads = new LinkedHashMap<>();
      for (int i = 0; i < keyValues.length; i += 2) {
        reads.put(keyValues[i], opt(keyValues[i + 1]));
      }
      return add(session, dc, Type.ROTX, null, null, Collections.unmodifiableMap(reads), Outcome.OK);
    }
  }
}
