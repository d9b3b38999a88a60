package org.kvlab.consensus.multicast;

import com.google.protobuf.InvalidProtocolBufferException;
import java.time.Duration;
import java.util.Optional;
import java.util.TreeSet;
import org.kvlab.api.Handlers;
import org.kvlab.api.Server;
import org.kvlab.consensus.multicast.proto.SkeenState;
import org.kvlab.testing.TestRecord;
import org.kvlab.testing.kit.Seq;

/**
 * One group of {@link SkeenTestProtocol}: multicasts {@code multicasts} messages (default 40), one every 1 to
 * {@code spacingMicros} µs (default 10,000), each to 1 to {@code fanout} random groups (default 3; itself among them
 * or not), and logs what it multicasts and delivers. With {@code durable} (default true) every event saves the
 * block's state with its messages ({@link DurableTurn}), so a crashed group restarts where it stopped; {@code mutant}
 * {@code deliver-before-final} makes the block deliver on tentative timestamps.
 */
final class SkeenTestServer extends Server<TestRecord> {
  static final String STATE_KEY = "\u0000skeen.test";

  private final MulticastLog log;
  private int group;
  private DurableTurn turn;
  private SkeenMulticast<Seq> skeen;
  private boolean durable;
  private int multicasts;
  private long spacingMicros;
  private int fanout;
  private int sent;   // saved as the state record's sr
  private long version;

  SkeenTestServer(MulticastLog log) {
    this.log = log;
  }

  @Override
  protected void register(Handlers on) {
    group = topology().indexOf(self());
    turn = new DurableTurn(this::send, this::save);
    skeen = new SkeenMulticast<>(group, Seq.parser(), (g, m) -> turn.send(topology().allNodes().get(g), m),
        (id, m, ts) -> log.delivered(group, id));
    skeen.register(on, turn::run);
  }

  @Override
  protected void onStart() {
    durable = params().bool("durable", true);
    multicasts = params().intValue("multicasts", 40);
    spacingMicros = params().intValue("spacingMicros", 10_000);
    fanout = Math.min(params().intValue("fanout", 3), topology().size());
    if (params().string("mutant", "none").equals("deliver-before-final")) {
      skeen.deliverBeforeFinal();
    }
    if (durable && restore()) {
      metrics().count("skeen.recovered");
    }
    next();
  }

  private void next() {
    if (sent < multicasts) {
      after(Duration.ofNanos(1000 * (1 + random().nextLong(spacingMicros))), () -> turn.run(this::multicastOne));
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

  private void save() {
    if (durable) {
      store().put(STATE_KEY, TestRecord.newBuilder().setValue(skeen.state().toByteString()).setUt(++version)
          .setSr(sent).build());
      store().prune(STATE_KEY, r -> r.getUt() == version);
    }
  }

  private boolean restore() {
    Optional<TestRecord> r = store().newest(STATE_KEY);
    if (r.isEmpty()) {
      return false;
    }
    try {
      skeen.restore(SkeenState.parseFrom(r.get().getValue()));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("skeen-test: cannot read the saved state (" + e.getMessage() + ")", e);
    }
    version = r.get().getUt();
    sent = r.get().getSr();
    return true;
  }
}
