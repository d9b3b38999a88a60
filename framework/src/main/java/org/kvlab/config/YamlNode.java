package org.kvlab.config;

import java.math.BigInteger;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * One node of a parsed YAML document together with where it was written, so that a value that parses
 * but makes no sense can still be reported with its line and column. Built by {@link YamlReader}; the fields are immutable.
 *
 * <p>Scalars keep the text exactly as written ({@code 1_0} stays {@code "1_0"}, although YAML 1.1 reads
 * it as the integer 10); integers also keep their value as YAML reads it.
 */
public final class YamlNode {
  public enum Kind {
    MAPPING("a mapping (key: value lines)"),
    LIST("a list"),
    STRING("text"),
    INTEGER("a whole number"),
    DECIMAL("a decimal number"),
    BOOLEAN("true/false"),
    NULL("empty");

    public final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  public final Kind kind;
  /** Dotted path from the root, e.g. {@code servers[2].port}; empty for the root. */
  public final String path;
  /** 1-based line and column of the value. */
  public final int line;
  public final int column;
  /** 1-based line and column of the key this value belongs to (the value's own for list items and the root). */
  public final int keyLine;
  public final int keyColumn;
  /** Scalars: the text as written; null for mappings and lists. */
  public final String text;
  /** INTEGER: the value as YAML reads it. */
  public final BigInteger integer;
  /** MAPPING: entries in file order. */
  public final Map<String, YamlNode> entries;
  /** LIST: items in file order. */
  public final List<YamlNode> items;

  YamlNode(Kind kind, String path, int line, int column, int keyLine, int keyColumn, String text,
      BigInteger integer, Map<String, YamlNode> entries, List<YamlNode> items) {
    this.kind = kind;
    this.path = path;
    this.line = line;
    this.column = column;
    this.keyLine = keyLine;
    this.keyColumn = keyColumn;
    this.text = text;
    this.integer = integer;
    this.entries = entries == null ? Map.of() : Collections.unmodifiableMap(entries);
    this.items = items == null ? List.of() : List.copyOf(items);
  }

  public boolean isScalar() {
    return kind != Kind.MAPPING && kind != Kind.LIST && kind != Kind.NULL;
  }

  /** MAPPING: the value of {@code key}, or null if the key is absent. */
  public YamlNode get(String key) {
    return entries.get(key);
  }

  /** The last segment of the path: the key of a mapping entry (e.g. {@code port}). */
  public String key() {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? path : path.substring(dot + 1);
  }

  /** How the value reads in a message: scalars quoted as written, other kinds described. */
  public String shown() {
    return isScalar() ? UserText.quoted(text) : kind.description;
  }

  @Override
  public String toString() {
    return path + "@" + line + ":" + column + "=" + (isScalar() ? text : kind.description);
  }
}
