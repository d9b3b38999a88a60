package org.kvlab.sim;

import java.util.List;
import org.kvlab.api.Protocol;
import org.kvlab.api.Topology;
import org.kvlab.history.Operation;

/** Scenario building blocks every protocol's tests share (seed 003 §2.3, §9). */
public final class Scenarios {
  private Scenarios() {}

  /** The first key named {@code prefix + i} that lives on partition {@code partition} of {@code topology}. */
  public static String keyOn(Topology topology, String prefix, int partition) {
    for (int i = 0; ; i++) {
      if (topology.partitionOf(prefix + i) == partition) {
        return prefix + i;
      }
    }
  }

  /**
   * The outcome of {@link #photoAlbum}.
   *
   * @param bobReadsPhoto Bob's read of the photo after he saw the album entry
   */
  public record PhotoAlbum(SimResult run, String photo, String album, Operation bobReadsPhoto) {}

  /**
   * Photo/album (seed 003 §2.3): in datacenter 0 Alice uploads a photo, then adds it to her album; in
   * datacenter 1 Bob polls the album until the entry appears, then reads the photo. The photo's partition
   * in datacenter 0 is slow (every message it sends is 200 ms late), so its replication arrives after the
   * album's. A causally consistent protocol must show Bob the photo; Eventual shows him nothing.
   */
  public static PhotoAlbum photoAlbum(Protocol protocol, long seed) {
    SimSpec defaults = SimSpec.defaults();
    Topology t = defaults.topology();
    String photo = keyOn(t, "photo", 0);
    String album = keyOn(t, "album", 1);
    SimSpec spec = defaults.withDuration(1_000_000)
        .withFaults(List.of(new Fault.Slow(t.serverFor(photo, 0), 200_000, 0, 1_000_000)));
    Script alice = Script.at(0).startingAt(10_000).put(photo, "beach.jpg").put(album, "album: beach.jpg");
    Script bob = Script.at(1).startingAt(10_000).awaitValue(album, "album: beach.jpg").get(photo);
    SimResult run = new Simulation(spec, protocol, seed, List.of(alice, bob)).run();
    Operation bobReadsPhoto = run.history().operations().stream()
        .filter(op -> op.dc() == 1 && op.type() == Operation.Type.GET && op.key().equals(photo)
            && op.invokeMicros() < spec.durationMicros())
        .findFirst().orElseThrow(() -> new AssertionError("Bob never read the photo: " + run.failures()));
    return new PhotoAlbum(run, photo, album, bobReadsPhoto);
  }
}
