package org.kvlab.workload.micro;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.kvlab.api.TxnProcedure;
import org.kvlab.api.TxnProcedures;

/**
 * The micro-benchmark of seed 004 §7.3 (Eliá, Figs 5-6): one synthetic operation, local or global, over keys
 * {@code micro:<k>}. Its cost is the protocol's service time (the Conveyor Belt's {@code serviceMicros}, the
 * paper's 5 ms), not the procedure's. With the operations file of the Conveyor Belt's {@code operations=micro}:
 *
 * <ul>
 *   <li>{@code microLocal()} over some {@code micro:<k>}: reads them, writes nothing; it reads what global operations
 *       write and nobody reads from it, so it is local at any server (no redirect, never on the token);
 *   <li>{@code microGlobal(k)} over {@code [micro:k]}: adds 1 to the counter at {@code micro:k}; every
 *       {@code microGlobal} may read what another one wrote, so it is global.
 * </ul>
 */
public final class MicroProcedures {
  public static final String LOCAL = "microLocal";
  public static final String GLOBAL = "microGlobal";

  private MicroProcedures() {}

  public static List<TxnProcedure> all() {
    return List.of(new Micro(LOCAL), new Micro(GLOBAL));
  }

  public static String key(long k) {
    return "micro:" + k;
  }

  private record Micro(String name) implements TxnProcedure {
    @Override
    public boolean keyLocal() {
      return name.equals(GLOBAL);
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      boolean global = name.equals(GLOBAL);
      if (global ? args.size() != 1 || !keys.equals(List.of("micro:" + args.get(0))) : !args.isEmpty()) {
        throw new IllegalArgumentException("procedure " + name + ": got keys " + keys + " and arguments " + args
            + ". Fix: " + (global ? "microGlobal(k) over [micro:k]" : "microLocal() over micro:<k> keys"));
      }
      if (!keys.stream().allMatch(k -> k.startsWith("micro:"))) {
        throw new IllegalArgumentException("procedure " + name + ": keys must be micro:<k>, got " + keys);
      }
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      Map<String, ByteString> out = new TreeMap<>();
      if (name.equals(GLOBAL)) {
        String k = "micro:" + args.get(0);
        out.put(k, TxnProcedures.text(TxnProcedures.number(read.get(k)) + 1));
      }
      return out;
    }
  }
}
