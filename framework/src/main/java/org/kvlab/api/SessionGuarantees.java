package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Capability of a {@link Client} whose reads and writes take a per-key session guarantee per operation
 * (seed 003 §2.2, NuKV): monotonic reads (MR) and read-your-writes (RYW) for reads, monotonic writes (MW)
 * and writes-follow-reads (WFR) for writes, alone, together or none (eventual). Callers check
 * {@code client instanceof SessionGuarantees}; plain {@link Client#get}/{@link Client#put} use the
 * client's default levels.
 */
public interface SessionGuarantees {

  /** Read consistency levels (Alg 4.1 GET). */
  enum ReadLevel {
    EVENTUAL, MR, RYW, MR_RYW;

    public boolean monotonicReads() {
      return this == MR || this == MR_RYW;
    }

    public boolean readYourWrites() {
      return this == RYW || this == MR_RYW;
    }

    /** Parses eventual, mr, ryw, mr+ryw (case-insensitive; '_' or '+' between the two). */
    public static ReadLevel parse(String text) {
      String t = text.strip().toUpperCase(Locale.ROOT).replace('+', '_').replace('-', '_');
      for (ReadLevel l : values()) {
        if (l.name().equals(t)) {
          return l;
        }
      }
      if (t.equals("RYW_MR")) {
        return MR_RYW;
      }
      throw new IllegalArgumentException("'" + text + "' is not a read level: use eventual, mr, ryw or mr+ryw");
    }
  }

  /** Write consistency levels (Alg 4.1 PUT). */
  enum WriteLevel {
    EVENTUAL, MW, WFR, MW_WFR;

    public boolean monotonicWrites() {
      return this == MW || this == MW_WFR;
    }

    public boolean writesFollowReads() {
      return this == WFR || this == MW_WFR;
    }

    /** Parses eventual, mw, wfr, mw+wfr (case-insensitive; '_' or '+' between the two). */
    public static WriteLevel parse(String text) {
      String t = text.strip().toUpperCase(Locale.ROOT).replace('+', '_').replace('-', '_');
      for (WriteLevel l : values()) {
        if (l.name().equals(t)) {
          return l;
        }
      }
      if (t.equals("WFR_MW")) {
        return MW_WFR;
      }
      throw new IllegalArgumentException("'" + text + "' is not a write level: use eventual, mw, wfr or mw+wfr");
    }
  }

  CompletableFuture<Optional<ByteString>> get(String key, ReadLevel level);

  CompletableFuture<Void> put(String key, ByteString value, WriteLevel level);
}
