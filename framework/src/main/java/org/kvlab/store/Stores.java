package org.kvlab.store;

import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import org.kvlab.api.Invariants.InvariantViolation;
import org.kvlab.api.NodeId;
import org.kvlab.api.RecordType;
import org.kvlab.config.ClusterConfig.StorageSpec;

/** Opens the {@link VersionedStore} a cluster file asks for; also holds checks shared by the stores. */
public final class Stores {
  private Stores() {}

  /**
   * Opens the store of server {@code id} of cluster {@code cluster}: an {@link InMemoryStore}, or a
   * {@link JeStore} in {@link StorageSpec#dirOf spec.dirOf(cluster, id)} (created if needed).
   *
   * @throws IllegalArgumentException for engine {@code memory} with durability {@code sync}, which it
   *     cannot give
   */
  public static <R extends Message> VersionedStore<R> open(
      RecordType<R> type, StorageSpec spec, String cluster, NodeId id) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(spec.engine(), "storage.engine");
    switch (spec.engine()) {
      case MEMORY:
        if (spec.durability() == Durability.SYNC) {
          throw new IllegalArgumentException(
              "storage.engine memory cannot give durability sync: use engine je, or durability none");
        }
        return new InMemoryStore<>(type);
      case JE:
        if (spec.dir() == null) {
          throw new IllegalArgumentException("storage.engine je needs storage.dir");
        }
        return new JeStore<>(type, spec.dirOf(cluster, id),
            spec.durability() == null ? Durability.NONE : spec.durability());
      default:
        throw new IllegalArgumentException("unknown storage.engine " + spec.engine());
    }
  }

  /**
   * The durable channel log kept with {@code store}, if its engine has one ({@link JeStore#channelLog()});
   * empty for engines that cannot make it durable ({@link InMemoryStore}).
   */
  public static Optional<ChannelLog> channelLog(VersionedStore<?> store) {
    return store instanceof JeStore<?> je ? Optional.of(je.channelLog()) : Optional.empty();
  }

  /**
   * Checks that {@code key} can be stored: not null, and well-formed UTF-16 (no unpaired surrogate).
   * An unpaired surrogate has no UTF-8 encoding; {@link String#getBytes} would turn it into '?', so two
   * distinct keys would share one JE key. Both stores reject such keys so they behave alike.
   */
  static String checkKey(String key) {
    Objects.requireNonNull(key, "key");
    for (int i = 0, n = key.length(); i < n; i++) {
      char c = key.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException("key " + show(key) + " has an unpaired surrogate at index " + i
            + "; keys must be valid Unicode");
      }
    }
    return key;
  }

  /** The version key of {@code record}, copied so a caller's cached array cannot change under us. */
  static <R extends Message> byte[] versionKeyOf(RecordType<R> type, R record) {
    byte[] version = type.versionKey().apply(record);
    if (version == null) {
      throw new IllegalArgumentException("version key function returned null for " + abbreviate(record));
    }
    return version.clone();
  }

  /** The error for a put of {@code record} under a version key that already holds {@code existing}. */
  static InvariantViolation conflict(String key, byte[] version, Message existing, Message record) {
    return new InvariantViolation("key " + show(key) + " version 0x" + HexFormat.of().formatHex(version)
        + " already holds a different record: two distinct versions compare equal under the protocol's"
        + " version key (existing " + abbreviate(existing) + ", new " + abbreviate(record) + ")");
  }

  /** {@code key} quoted, with control and non-ASCII characters escaped, for messages. */
  static String show(String key) {
    StringBuilder sb = new StringBuilder("\"");
    int limit = Math.min(key.length(), 200);
    for (int i = 0; i < limit; i++) {
      char c = key.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        sb.append(c);
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    if (limit < key.length()) {
      sb.append("...(").append(key.length()).append(" chars)");
    }
    return sb.append('"').toString();
  }

  private static String abbreviate(Message m) {
    String s = "{" + TextFormat.printer().emittingSingleLine(true).printToString(m) + "}";
    return s.length() <= 300 ? s : s.substring(0, 300) + "...}";
  }
}
