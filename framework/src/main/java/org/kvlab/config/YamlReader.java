package org.kvlab.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.kvlab.config.YamlNode.Kind;

/**
 * Reads a YAML file into a tree of {@link YamlNode}s that remember where each value was written, and
 * checks it with messages that name the file, line and column, what is wrong and how to fix it (as
 * {@link ConfigException}s). Shared by the cluster-file loader and other YAML formats (experiment
 * files); a loader extends it and adds its own sections.
 */
public class YamlReader {
  // Not YAMLFactory.builder().build(): that one reads an empty value (`key:`) as "" rather than null.
  private static final YAMLFactory YAML = new YAMLFactory();
  private static final java.util.regex.Pattern DECIMAL_INTEGER = java.util.regex.Pattern.compile("[+-]?[0-9]+");

  /** The file name used in messages. */
  protected final String source;
  private final String what;
  private final String emptyFix;
  private final String secondDocumentFix;

  /**
   * @param source the file name for messages
   * @param what what the file is, e.g. {@code "cluster file"} (in "the cluster file is empty")
   * @param emptyFix the fix proposed for an empty file
   * @param secondDocumentFix the fix proposed when a second YAML document follows the first
   */
  public YamlReader(String source, String what, String emptyFix, String secondDocumentFix) {
    this.source = source;
    this.what = what;
    this.emptyFix = emptyFix;
    this.secondDocumentFix = secondDocumentFix;
  }

  /** An example line for {@code key}, used in fixes ("add a line like ..."); null if none. */
  protected String example(String key) {
    return null;
  }

  /** The largest file {@link #readText} reads: a cluster or experiment file is a few kilobytes. */
  public static final long FILE_BYTES_MAX = 16L << 20;

  /**
   * The text of {@code file}: errors (naming the file as a {@code what}) if it is a directory, a device, a
   * FIFO or another file that is not a regular file (reading one could block forever or never end), larger
   * than {@link #FILE_BYTES_MAX}, missing, unreadable or not UTF-8. A leading byte-order mark is dropped.
   */
  public static String readText(Path file, String what) throws ConfigException {
    return readText(file, what, FILE_BYTES_MAX);
  }

  /** {@link #readText(Path, String)} with another size limit. */
  public static String readText(Path file, String what, long bytesMax) throws ConfigException {
    String source = file.toString();
    String cannot = "cannot read " + what + " " + source;
    checkRegularFile(file, what, bytesMax);
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // bounded even if the file grows after the check
      bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, bytesMax + 1));
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, 0, 0, cannot + ": no such file", "check the path.");
    } catch (AccessDeniedException e) {
      throw new ConfigException(source, 0, 0, cannot + ": permission denied", "make the file readable (chmod +r).");
    } catch (IOException e) {
      String reason = e.getMessage() == null ? "input/output error" : e.getMessage();
      throw new ConfigException(source, 0, 0, cannot + ": " + reason, "check the path and that the file is readable.");
    }
    if (bytes.length > bytesMax) {
      throw tooLarge(source, what, bytesMax);
    }
    try {
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
      return stripBom(text);
    } catch (CharacterCodingException e) {
      throw new ConfigException(source, 0, 0, cannot + ": it is not UTF-8 text", "save it as UTF-8.");
    }
  }

  /**
   * Errors (naming the file as a {@code what}) unless {@code file} is a regular file (symbolic links are
   * followed) of at most {@code bytesMax} bytes: a directory, a device such as /dev/zero, a FIFO or a socket
   * is refused before it is opened. For every reader of user-given files (cluster, experiment, history).
   */
  public static void checkRegularFile(Path file, String what, long bytesMax) throws ConfigException {
    String source = file.toString();
    String cannot = "cannot read " + what + " " + source;
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, 0, 0, cannot + ": no such file", "check the path.");
    } catch (AccessDeniedException e) {
      throw new ConfigException(source, 0, 0, cannot + ": permission denied", "make the file readable (chmod +r).");
    } catch (IOException e) {
      String reason = e.getMessage() == null ? "input/output error" : e.getMessage();
      throw new ConfigException(source, 0, 0, cannot + ": " + reason, "check the path and that the file is readable.");
    }
    if (attributes.isDirectory()) {
      throw new ConfigException(source, 0, 0, cannot + ": it is a directory", "give the path of a " + what + ".");
    }
    if (!attributes.isRegularFile()) {
      throw new ConfigException(source, 0, 0, cannot + ": it is not a regular file (a device, a FIFO or a socket)",
          "give the path of a " + what + " saved on disk; to use generated text, write it to a file first.");
    }
    if (attributes.size() > bytesMax) {
      throw tooLarge(source, what, bytesMax);
    }
  }

  private static ConfigException tooLarge(String source, String what, long bytesMax) {
    return new ConfigException(source, 0, 0, "cannot read " + what + " " + source + ": it is larger than "
        + (bytesMax >= 1 << 20 ? (bytesMax >> 20) + " MiB" : bytesMax + " bytes") + ", too large for a " + what,
        "check the path (is it the " + what + "?).");
  }

  public static String stripBom(String yaml) {
    return yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
  }

  // ---------------------------------------------------------------------------------------------
  // YAML to located tree

  public YamlNode readTree(String yaml) throws ConfigException {
    try (JsonParser p = YAML.createParser(yaml)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new ConfigException(source, 0, 0, "the " + what + " is empty", emptyFix);
      }
      JsonLocation at = p.currentTokenLocation();
      YamlNode root = read(p, "", at.getLineNr(), at.getColumnNr());
      if (p.nextToken() != null) {
        JsonLocation second = p.currentTokenLocation();
        throw new ConfigException(source, second.getLineNr(), second.getColumnNr(),
            "a second YAML document starts here (after '---')",
            secondDocumentFix);
      }
      return root;
    } catch (StreamReadException e) {
      throw syntaxError(e);
    } catch (IOException e) {
      // Reading from a String: only a parse problem can get here.
      throw new ConfigException(source, 0, 0, "cannot parse the YAML: " + firstLine(e.getMessage()),
          "check the YAML syntax.");
    }
  }

  private YamlNode read(JsonParser p, String path, int keyLine, int keyColumn)
      throws IOException, ConfigException {
    JsonToken token = p.currentToken();
    JsonLocation at = p.currentTokenLocation();
    int line = at.getLineNr();
    int column = at.getColumnNr();
    if (p instanceof YAMLParser yp && yp.isCurrentAlias()) {
      throw new ConfigException(source, line, column, label(path) + "YAML aliases (*" + p.getText()
          + ") are not supported", "write the value out in full.");
    }
    if (p instanceof YAMLParser yp && yp.getTypeId() != null) {
      // kvlab reads every value as written: a tag would be silently ignored
      throw new ConfigException(source, line, column, label(path) + "YAML tags (" + shownTag(yp.getTypeId())
          + ") are not supported", "remove the tag; values are read as written (quote text, e.g. '\"7100\"').");
    }
    switch (token) {
      case START_OBJECT: {
        Map<String, YamlNode> entries = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          JsonLocation keyAt = p.currentTokenLocation();
          p.nextToken();
          YamlNode value = read(p, child(path, key), keyAt.getLineNr(), keyAt.getColumnNr());
          YamlNode earlier = entries.putIfAbsent(key, value);
          if (earlier != null) {
            throw new ConfigException(source, keyAt.getLineNr(), keyAt.getColumnNr(),
                label(path) + "key '" + key + "' is given twice (first on line " + earlier.keyLine + ")",
                "keep only one of them.");
          }
        }
        return new YamlNode(Kind.MAPPING, path, line, column, keyLine, keyColumn, null, null, entries, null);
      }
      case START_ARRAY: {
        List<YamlNode> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          JsonLocation itemAt = p.currentTokenLocation();
          items.add(read(p, path + "[" + items.size() + "]", itemAt.getLineNr(), itemAt.getColumnNr()));
        }
        return new YamlNode(Kind.LIST, path, line, column, keyLine, keyColumn, null, null, null, items);
      }
      case VALUE_NUMBER_INT:
        return scalar(Kind.INTEGER, path, at, keyLine, keyColumn, p.getText(), p.getBigIntegerValue());
      case VALUE_NUMBER_FLOAT:
        return scalar(Kind.DECIMAL, path, at, keyLine, keyColumn, p.getText(), null);
      case VALUE_TRUE:
      case VALUE_FALSE:
        return scalar(Kind.BOOLEAN, path, at, keyLine, keyColumn, p.getText(), null);
      case VALUE_NULL:
        return scalar(Kind.NULL, path, at, keyLine, keyColumn, "", null);
      case VALUE_STRING:
        return scalar(Kind.STRING, path, at, keyLine, keyColumn, p.getText(), null);
      default:
        throw new ConfigException(source, line, column, label(path) + "unsupported YAML value",
            "write plain text, a number, a list or a mapping.");
    }
  }

  private static String shownTag(String tag) {
    String core = "tag:yaml.org,2002:";
    return tag.startsWith(core) ? "!!" + tag.substring(core.length()) : "!" + tag;
  }

  private static YamlNode scalar(Kind kind, String path, JsonLocation at, int keyLine, int keyColumn,
      String text, BigInteger integer) {
    return new YamlNode(kind, path, at.getLineNr(), at.getColumnNr(), keyLine, keyColumn, text, integer,
        null, null);
  }

  private ConfigException syntaxError(StreamReadException e) {
    int line = 0;
    int column = 0;
    String problem = null;
    // Jackson wraps SnakeYAML's exception, which knows where the problem itself is (Jackson's location
    // is sometimes that of the enclosing construct).
    for (Throwable c = e; c != null && problem == null; c = c.getCause()) {
      if (c instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblemMark() != null) {
        line = m.getProblemMark().getLine() + 1;
        column = m.getProblemMark().getColumn() + 1;
        problem = m.getProblem() == null ? "malformed YAML" : m.getProblem();
        if (m.getContext() != null && m.getContextMark() != null) {
          problem += " (" + m.getContext() + " at line " + (m.getContextMark().getLine() + 1) + ")";
        } else if (m.getContext() != null) {
          problem += " (" + m.getContext() + ")";
        }
      }
    }
    if (problem == null) {
      JsonLocation at = e.getLocation();
      line = at == null ? 0 : Math.max(at.getLineNr(), 0);
      column = at == null ? 0 : Math.max(at.getColumnNr(), 0);
      problem = firstLine(e.getOriginalMessage());
    }
    String fix = "check the indentation and punctuation here (a mapping is 'key: value' lines, a list is"
        + " '- item' lines or [a, b], an inline mapping is { key: value }); quote text that contains ': ' or '#'.";
    if (problem.contains("(TAB)")) {
      problem = "a tab character where YAML expects indentation";
      fix = "indent with spaces, not tabs.";
    }
    return new ConfigException(source, line, column, "YAML syntax error: " + problem, fix);
  }

  private static String firstLine(String s) {
    if (s == null || s.isBlank()) {
      return "malformed YAML";
    }
    String t = s.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl).strip();
  }

  private static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** The prefix naming a node in a message: {@code "servers[2].port: "}, or nothing for the root. */
  public static String label(String path) {
    return path.isEmpty() ? "" : path + ": ";
  }

  // ---------------------------------------------------------------------------------------------
  // Checks shared by every format

  public ConfigException error(YamlNode at, String problem, String fix) {
    return new ConfigException(source, at.line, at.column, label(at.path) + problem, fix);
  }

  /** An error reported at the key of {@code at} (for problems with the entry as a whole). */
  public ConfigException errorAtKey(YamlNode at, String problem, String fix) {
    return new ConfigException(source, at.keyLine, at.keyColumn, label(at.path) + problem, fix);
  }

  public void checkKeys(YamlNode map, List<String> known) throws ConfigException {
    for (Map.Entry<String, YamlNode> entry : map.entries.entrySet()) {
      String key = entry.getKey();
      if (known.contains(key)) {
        continue;
      }
      YamlNode value = entry.getValue();
      boolean top = map.path.isEmpty();
      String list = (top ? "top-level keys" : "keys of '" + map.path + "'") + " are " + String.join(", ", known) + ".";
      String suggestion = closest(key, known);
      throw new ConfigException(source, value.keyLine, value.keyColumn,
          label(map.path) + "unknown " + (top ? "top-level " : "") + "key " + UserText.quoted(key),
          suggestion == null ? "remove it; the known " + list
              : "did you mean '" + suggestion + "'? The known " + list);
    }
  }

  /**
   * {@code fix}, after "did you mean 'x'? " when {@code given} is not one of {@code choices} but close to one (the fix
   * then capitalised): "did you mean 'tom'? Use pb, tom or camu".
   */
  public static String fixWithSuggestion(String given, List<String> choices, String fix) {
    String near = given == null || choices.isEmpty() || choices.contains(given) ? null : closest(given, choices);
    if (near == null) {
      return fix;
    }
    String suggestion = "did you mean '" + near + "'?";
    return fix.isEmpty() ? suggestion : suggestion + " " + Character.toUpperCase(fix.charAt(0)) + fix.substring(1);
  }

  /**
   * The known key nearest to {@code key} in edit distance, if near enough to be a likely typo, else the one known key
   * that {@code key} (3 characters or more) begins: {@code zipf} for {@code zipfian}. The one "did you mean" of every
   * message: cluster and experiment files, protocol, checker, parameter, fault and option values on the command line.
   */
  public static String closest(String key, List<String> known) {
    String near = nearest(key, known);
    if (near != null || key.length() < 3) {
      return near;
    }
    List<String> extended = known.stream()
        .filter(k -> k.toLowerCase(Locale.ROOT).startsWith(key.toLowerCase(Locale.ROOT))).toList();
    return extended.size() == 1 ? extended.get(0) : null;
  }

  private static String nearest(String key, List<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = editDistance(key.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, best.length() / 4) ? best : null;
  }

  public static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(substitute, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** The value of a required key; errors if it is absent or empty. */
  public YamlNode require(YamlNode map, String key) throws ConfigException {
    YamlNode value = map.get(key);
    String example = example(key);
    if (example == null) {
      example = key + ": ...";
    }
    if (value == null) {
      throw error(map, "missing required key '" + key + "'", "add a line like '" + example + "'"
          + (map.path.isEmpty() ? "" : " to " + map.path) + ".");
    }
    if (value.kind == Kind.NULL) {
      throw errorAtKey(value, "has no value", "give it one, e.g. '" + example + "'.");
    }
    return value;
  }

  /** An optional section: null if absent or written with nothing under it; errors if not a mapping. */
  public YamlNode section(YamlNode value, List<String> keys) throws ConfigException {
    if (value == null || value.kind == Kind.NULL) {
      return null;
    }
    if (value.kind != Kind.MAPPING) {
      throw error(value, "must be a mapping with keys " + String.join(", ", keys) + ", but is "
          + value.kind.description + " " + value.shown(), "write it as 'key: value' lines indented under "
          + value.path + ", or as { key: value, ... }.");
    }
    checkKeys(value, keys);
    return value;
  }

  /** A single value written as text (numbers and booleans count: their text is taken as written). */
  public String text(YamlNode value, String example) throws ConfigException {
    if (value.kind == Kind.NULL) {
      throw errorAtKey(value, "has no value", "give it one, e.g. '" + example + "'.");
    }
    if (!value.isScalar()) {
      throw error(value, "must be a single value, but is " + value.kind.description,
          "write it like '" + example + "'.");
    }
    String t = value.text.strip();
    if (t.isEmpty()) {
      throw error(value, "is empty", "write it like '" + example + "'.");
    }
    return t;
  }

  /** A true/false value (either case); anything else is an error whose fix is {@code fix}. */
  public boolean trueOrFalse(YamlNode value, String fix) throws ConfigException {
    String t = text(value, "true").toLowerCase(java.util.Locale.ROOT);
    if (t.equals("true")) {
      return true;
    }
    if (t.equals("false")) {
      return false;
    }
    throw error(value, value.shown() + " is not true or false", fix);
  }

  public long integer(YamlNode value, String range) throws ConfigException {
    String example = example(value.key());
    if (value.kind == Kind.NULL) {
      throw errorAtKey(value, "has no value", "give it a whole number " + range + ".");
    }
    String fix = "write a whole number " + range + " in decimal digits" + (example == null ? "." : ", e.g. '" + example + "'.");
    String t = value.isScalar() ? value.text.strip() : "";
    if ((value.kind != Kind.INTEGER && value.kind != Kind.STRING) || !DECIMAL_INTEGER.matcher(t).matches()) {
      // YAML 1.1 also reads 0x1dc4, 0b101, 0o17 and 1_000 as numbers: kvlab takes decimal digits only.
      String why = t.contains("_") ? " (no '_' separators)" : t.matches("[+-]?0[xXbBoO].*") ? " (no hex, octal or binary)" : "";
      throw error(value, value.shown() + " is not a whole number in decimal digits" + why, fix);
    }
    String digits = t.startsWith("+") || t.startsWith("-") ? t.substring(1) : t;
    if (digits.length() > 1 && digits.startsWith("0")) {
      throw error(value, value.shown() + " has a leading zero (YAML 1.1 reads it as an octal number)",
          "write the number without leading zeros.");
    }
    BigInteger n = new BigInteger(t);
    if (n.bitLength() > 62) {
      throw error(value, UserText.cut(value.text) + " is out of range", "use a number " + range + ".");
    }
    return n.longValue();
  }

  /** {@link #intIn(YamlNode, long, long)} within {@code range}. */
  public int intIn(YamlNode value, Range range) throws ConfigException {
    return intIn(value, range.min(), range.max());
  }

  public int intIn(YamlNode value, long min, long max) throws ConfigException {
    String range = "from " + min + " to " + max;
    long n = integer(value, range);
    if (n < min || n > max) {
      throw error(value, UserText.cut(value.text) + " is out of range", "use a number " + range + ".");
    }
    return (int) n;
  }
}
