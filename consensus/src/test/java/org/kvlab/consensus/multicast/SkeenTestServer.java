package org.kvlab.consensus.multicast;

import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Server;
import org.kvlab.api.Slot;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.testing.TestRecord;
import org.kvlab.testing.kit.Seq;

/**
 * One group of {@link SkeenTestProtocol}: multicasts {@code multicasts} messages (default 40), one every 1 to
 * {@code spacingMicros} µs (default 10,000), each to 1 to {@code fanout} random groups (default 3; itself among them
 * or not), and logs what it multicasts and delivers. With {@code durable} (default true) every event puts the
 * block's state in a slot, which the host writes before the event's messages leave, so a crashed group restarts where
 * it stopped; {@code mutant} {@code deliver-before-final} makes the block deliver on tentative timestamps.
 */
final class SkeenTestServer extends Server<TestRecord> {
  private final MulticastLog log;
  private int group;
  private SkeenMulticast<Seq> skeen;
  private Slot<TestRecord> state; // value: the block's state, sr: sent; null unless durable
  private int multicasts;
  private long spacingMicros;
  private int fanout;
  private int sent;

  SkeenTestServer(MulticastLog log) {
    this.log = log;
  }

  @Override
  protected void register(Handlers on) {
    group = topology().indexOf(self());
    skeen = new SkeenMulticast<>(group, Seq.parser(), (g, m) -> send(topology().allNodes().get(g), m),
        (id, m, ts) -> log.delivered(group, id));
    skeen.register(on, this::saving);
  }

  @Override
  protected void onStart() {
    multicasts = params().intValue("multicasts", 40);
    spacingMicros = params().intValue("spacingMicros", 10_000);
    fanout = Math.min(params().intValue("fanout", 3), topology().size());
    if (params().string("mutant", "none").equals("deliver-before-final")) {
      skeen.deliverBeforeFinal();
    }
    if (params().bool("durable", true)) {
      state = slot(TestRecord.getDefaultInstance());
      if (restore()) {
        metrics().count("skeen.recovered");
      }
    }
    next();
  }

  private void next() {
    if (sent < multicasts) {
      after(Duration.ofNanos(1000 * (1 + random().nextLong(spacingMicros))), () -> saving(this::multicastOne));
    }
  }

  private void multicastOne() {
    long id = ((long) group << 40) | ++sent;
    int k = 1 + random().nextInt(fanout);
    TreeSet<Integer> dest = new TreeSet<>();
    while (dest.size() < k) {
      dest.add(random().nextInt(topology().size()));
    }
    log.multicast(group, id, dest);
    skeen.multicast(id, Seq.newBuilder().setN(id).build(), dest);
    next();
  }

  private void saving(Runnable event) {
    event.run();
    if (state != null) {
      state.set(TestRecord.newBuilder().setValue(skeen.state().toByteString()).setSr(sent).build());
    }
  }

  private boolean restore() {
    TestRecord r = state.get();
    if (r.equals(TestRecord.getDefaultInstance())) {
      return false;
    }
    try {
      skeen.restore(SkeenState.parseFrom(r.getValue()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("skeen-test: cannot read the saved state (" + e.getMessage() + ")", e);
    }
    sent = r.getSr();
    return true;
  }
}
