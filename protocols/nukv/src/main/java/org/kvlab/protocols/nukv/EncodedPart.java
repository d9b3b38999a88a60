package org.kvlab.protocols.nukv;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import org.kvlab.api.Invariants;

/**
 * A {@link SnapshotPart} held as its protobuf encoding: what {@link SnapshotSource} hands MicroRaft as a snapshot
 * chunk's operation. The journal and the InstallSnapshot messages carry these bytes as they are (see
 * {@link RaftCodec#chunk}): on the wire they are exactly the encoding of the SnapshotPart, so whatever reads a chunk
 * (a restart, a follower) parses a SnapshotPart, and journals and messages are the ones earlier versions wrote.
 */
final class EncodedPart {
  private final ByteString bytes;

  EncodedPart(ByteString bytes) {
    this.bytes = bytes;
  }

  /** The SnapshotPart's encoding (never changed: SnapshotSource's later snapshots copy from it). */
  ByteString bytes() {
    return bytes;
  }

  /** The part, parsed. */
  SnapshotPart parse() {
    try {
      return SnapshotPart.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new Invariants.InvariantViolation("NuKV snapshot part of " + bytes.size() + " bytes does not parse: "
          + e.getMessage());
    }
  }

  /** The part a snapshot chunk's operation holds, whichever form it has (parsed, or these bytes). */
  static SnapshotPart part(Object operation) {
    if (operation instanceof EncodedPart e) {
      return e.parse();
    }
    Invariants.check(operation instanceof SnapshotPart, "NuKV snapshot chunk holds %s, not a NuKV snapshot part",
        operation == null ? "null" : operation.getClass().getName());
    return (SnapshotPart) operation;
  }

  /** The serialized size of a chunk's part, whichever form it has. */
  static int size(Object operation) {
    return operation instanceof EncodedPart e ? e.bytes.size() : part(operation).getSerializedSize();
  }

  /** Parts with the same bytes are the same part. */
  @Override
  public boolean equals(Object o) {
    return o instanceof EncodedPart e && e.bytes.equals(bytes);
  }

  @Override
  public int hashCode() {
    return bytes.hashCode();
  }

  @Override
  public String toString() {
    return "EncodedPart(" + bytes.size() + " bytes)";
  }
}
