package org.kvlab.partitioning.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An application's transaction types, in YAML (docs/partitioning.md#operation-partitioning):
 *
 * <pre>
 * types:
 *   - { name: add, params: [c, i, q], reads: ["stock:{i}"], writes: ["cart:{c}"], weight: 50 }
 * </pre>
 *
 * Errors name the file, the type and the fix.
 */
public final class OperationsFile {
  private static final Set<String> TOP = Set.of("types");
  private static final Set<String> FIELDS = Set.of("name", "params", "reads", "writes", "weight");

  private OperationsFile() {}

  public static List<OperationType> read(Path file) throws IOException {
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
    try {
      return parse(root);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** The types of a file read from {@code in} (a resource), {@code name} naming it in errors. */
  public static List<OperationType> read(String name, java.io.InputStream in) throws IOException {
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(in);
    try {
      return parse(root);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }

  static List<OperationType> parse(JsonNode root) {
    if (root == null || !root.isObject() || !root.path("types").isArray()) {
      throw new IllegalArgumentException("no 'types:' list. Fix: types: [ {name: add, params: [c], writes:"
          + " [\"cart:{c}\"]} ]");
    }
    unknown(root, TOP, "the file");
    List<OperationType> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (JsonNode t : root.get("types")) {
      String name = t.path("name").asText("");
      if (name.isEmpty()) {
        throw new IllegalArgumentException("a type without a name. Fix: give each type name: <text>");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("type " + name + " is declared twice. Fix: one entry per type");
      }
      unknown(t, FIELDS, "type " + name);
      Set<String> params = new LinkedHashSet<>(strings(t, "params", name));
      List<KeyTemplate> reads = new ArrayList<>();
      List<KeyTemplate> writes = new ArrayList<>();
      try {
        strings(t, "reads", name).forEach(s -> reads.add(KeyTemplate.parse(s, params)));
        strings(t, "writes", name).forEach(s -> writes.add(KeyTemplate.parse(s, params)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("type " + name + ": " + e.getMessage(), e);
      }
      if (reads.isEmpty() && writes.isEmpty()) {
        throw new IllegalArgumentException("type " + name + " reads and writes nothing. Fix: give its key templates"
            + " under reads: and writes:");
      }
      JsonNode w = t.path("weight");
      if (!w.isMissingNode() && !w.isNumber()) {
        throw new IllegalArgumentException("type " + name + ": weight '" + w.asText() + "' is not a number");
      }
      out.add(new OperationType(name, List.copyOf(params), reads, writes, w.isMissingNode() ? 1 : w.asDouble()));
    }
    return out;
  }

  private static List<String> strings(JsonNode t, String field, String type) {
    JsonNode n = t.path(field);
    if (n.isMissingNode()) {
      return List.of();
    }
    if (!n.isArray()) {
      throw new IllegalArgumentException("type " + type + ": " + field + " must be a list, e.g. " + field
          + ": [\"cart:{c}\"]");
    }
    List<String> out = new ArrayList<>();
    n.forEach(x -> out.add(x.asText()));
    return out;
  }

  private static void unknown(JsonNode n, Set<String> known, String where) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw new IllegalArgumentException(where + ": unknown field '" + f + "'. Fix: use " + known);
      }
    }
  }
}
