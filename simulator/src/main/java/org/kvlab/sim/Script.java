package org.kvlab.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * A scripted client session for scenario tests (photo/album, Alice/Bob): a fixed sequence of steps run
 * by one session attached to datacenter {@code dc}, starting at {@code startMicros}.
 *
 * <pre>{@code
 * Script alice = Script.at(0).put("photo", "p1").put("album", "has p1");
 * Script bob = Script.at(1).awaitValue("album", "has p1").get("photo");
 * }</pre>
 */
public record Script(int dc, long startMicros, List<Step> steps) {

  public static Script at(int dc) {
    return new Script(dc, 0, List.of());
  }

  public Script startingAt(long micros) {
    return new Script(dc, micros, steps);
  }

  private Script then(Step s) {
    List<Step> next = new ArrayList<>(steps);
    next.add(s);
    return new Script(dc, startMicros, next);
  }

  public Script put(String key, String value) {
    return then(new Step.Put(key, value));
  }

  public Script get(String key) {
    return then(new Step.Get(key));
  }

  /** Reads {@code key} every millisecond until it returns {@code value} (each read is in the history). */
  public Script awaitValue(String key, String value) {
    return awaitValue(key, value, 10_000_000);
  }

  /** As {@link #awaitValue(String, String)}, but moves on to the next step after {@code giveUpAfterMicros}. */
  public Script awaitValue(String key, String value, long giveUpAfterMicros) {
    return then(new Step.AwaitValue(key, value, 1_000, giveUpAfterMicros));
  }

  public Script rotx(String... keys) {
    return then(new Step.Rotx(List.of(keys)));
  }

  /** A one-shot transaction (the protocol's client must offer {@code Transactions}). */
  public Script txn(org.kvlab.api.TxnRequest request) {
    return then(new Step.Txn(request));
  }

  public Script pause(long micros) {
    return then(new Step.Pause(micros));
  }

  /** The session's next operations go to datacenter {@code dc} (a client that switches datacenters). */
  public Script moveTo(int dc) {
    return then(new Step.MoveTo(dc));
  }

  /** One step of a script. */
  public sealed interface Step {
    record Put(String key, String value) implements Step {}

    record Get(String key) implements Step {}

    record AwaitValue(String key, String value, long pollMicros, long giveUpAfterMicros) implements Step {}

    record Rotx(List<String> keys) implements Step {}

    record Txn(org.kvlab.api.TxnRequest request) implements Step {}

    record Pause(long micros) implements Step {}

    record MoveTo(int dc) implements Step {}
  }
}
