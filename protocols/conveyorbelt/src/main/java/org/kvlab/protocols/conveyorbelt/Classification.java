package org.kvlab.protocols.conveyorbelt;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.kvlab.api.ParameterException;
import org.kvlab.partitioning.operations.OperationClass;
import org.kvlab.partitioning.operations.OperationPartitioning;
import org.kvlab.partitioning.operations.OperationType;
import org.kvlab.partitioning.operations.OperationsFile;
import org.kvlab.partitioning.operations.SoundnessCheck;

/**
 * The operations file's classification (seed 004's Alg. 1, {@link OperationPartitioning}) as the Conveyor Belt uses
 * it: for an operation, its class and the server it belongs to. A transaction type is named by the procedure it runs;
 * the procedure's arguments bind the type's parameters in order. An operation whose procedure is not a type of the
 * file (a plain GET, PUT or read/write-set transaction, or another procedure) is global at the server it arrives at:
 * serializable against everything, as long as it touches no key a local type writes (then the file must declare it).
 *
 * <p>Routing, one deterministic function for clients and servers ({@link #route}): a value {@code <d>@<rest>} with d
 * a server number routes to server d (the seed's <b>server-specific unique ids</b>: ids minted at server d come back
 * to it); any other value to {@code floorMod(value.hashCode(), servers)}, as {@link SoundnessCheck} assumes.
 */
final class Classification {
  /** Where an operation belongs: its class, its server (-1: wherever it arrives) and its type (null: not declared). */
  record Kind(OperationClass cls, int server, OperationType type, Map<String, String> bound) {}

  private static final Map<String, Classification> CACHE = new ConcurrentHashMap<>();

  final String source;
  final OperationPartitioning.Result result;
  private final Map<String, OperationPartitioning.Assignment> byName = new HashMap<>();

  private Classification(String source, OperationPartitioning.Result result) {
    this.source = source;
    this.result = result;
    result.assignments().forEach(a -> byName.put(a.type().name(), a));
  }

  /**
   * The classification of {@code operations}: {@code store} (the online store shipped with the protocol, the
   * default), {@code micro} (the micro-benchmark), {@code none} (no type: every operation global), or a file path.
   *
   * @throws ParameterException naming the file's problem and the fix
   */
  static Classification load(String operations) {
    return CACHE.computeIfAbsent(operations, Classification::read);
  }

  private static Classification read(String operations) {
    try {
      List<OperationType> types;
      if (operations.equals("none")) {
        return new Classification(operations, new OperationPartitioning.Result(List.of(), 0, 0));
      } else if (operations.equals("store") || operations.equals("micro")) {
        String name = operations.equals("store") ? "online-store.yaml" : "micro.yaml";
        try (InputStream in = Classification.class.getResourceAsStream(name)) {
          types = OperationsFile.read(name, in);
        }
      } else {
        Path p = Path.of(operations);
        if (!Files.isRegularFile(p)) {
          throw new ParameterException("operations", "file " + p + " does not exist", "give store, micro, none or"
              + " the path of an operations file (docs/partitioning.md#operation-partitioning)");
        }
        types = OperationsFile.read(p);
      }
      return new Classification(operations, OperationPartitioning.classify(types));
    } catch (IOException | IllegalArgumentException e) {
      if (e instanceof ParameterException pe) {
        throw pe;
      }
      throw new ParameterException("operations", e.getMessage(), "correct the operations file"
          + " (docs/partitioning.md#operation-partitioning)");
    }
  }

  /** The server of a partitioning value among {@code servers}. */
  static int route(String value, int servers) {
    int at = value.indexOf('@');
    if (at > 0) {
      try {
        int d = Integer.parseInt(value.substring(0, at));
        if (d < servers) {
          return d;
        }
      } catch (NumberFormatException e) {
        // not a server-specific id: hashed
      }
    }
    return Math.floorMod(value.hashCode(), servers);
  }

  /** The class and server of an operation with {@code procedure} (empty: none) and {@code args}. */
  Kind of(String procedure, List<String> args, int servers) {
    OperationPartitioning.Assignment a = procedure.isEmpty() ? null : byName.get(procedure);
    if (a == null) {
      return new Kind(OperationClass.G, -1, null, Map.of());
    }
    Map<String, String> bound = new LinkedHashMap<>();
    List<String> params = a.type().params();
    for (int i = 0; i < params.size() && i < args.size(); i++) {
      bound.put(params.get(i), args.get(i));
    }
    String value = a.cls() == OperationClass.C || a.param() == null ? null : bound.get(a.param());
    return new Kind(a.cls(), value == null ? -1 : route(value, servers), a.type(), bound);
  }

  /**
   * The keys of an execution its type does not declare (the run-time check of the declarations the classification
   * rests on): keys read or written outside the type's templates.
   */
  static List<String> undeclared(Kind k, List<String> read, Iterable<String> written) {
    List<String> out = new ArrayList<>();
    if (k.type() == null) {
      return out;
    }
    for (String key : read) {
      if (!k.type().declares(key, k.bound(), false)) {
        out.add("reads " + key);
      }
    }
    for (String key : written) {
      if (!k.type().declares(key, k.bound(), true)) {
        out.add("writes " + key);
      }
    }
    return out;
  }

  /** The sampled soundness check's violations on {@code servers} servers (empty: none found). */
  List<String> soundness(int servers) {
    return result.assignments().isEmpty() ? List.of() : SoundnessCheck.check(result, servers, 500, 5, 1);
  }
}
