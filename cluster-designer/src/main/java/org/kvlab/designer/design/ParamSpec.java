package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvlab.api.Protocol;

/**
 * One protocol parameter as the plug-in declares it in {@link Protocol#parameters()}: the declaration reads
 * {@code "<form>, default <value>: <meaning>"}, e.g. {@code "duration, default 10ms: how often ..."} or
 * {@code "pb | tom | camu, default camu: ..."}. A form of alternatives separated by {@code |} gives a choice.
 * A declaration in another form keeps its whole text as the documentation.
 */
public record ParamSpec(String name, String form, String defaultValue, String doc, List<String> choices) {
  private static final Pattern DECL = Pattern.compile("(?s)\\s*([^,:]*?)\\s*,\\s*default\\s+(.*?)\\s*:\\s+(.*)");

  public static ParamSpec of(String name, String declaration) {
    Matcher m = DECL.matcher(declaration);
    if (!m.matches()) {
      return new ParamSpec(name, "", "", declaration.strip(), List.of());
    }
    String form = m.group(1);
    List<String> choices = new ArrayList<>();
    if (form.matches("true\\s*/\\s*false")) {
      choices.addAll(List.of("true", "false"));
    } else if (form.contains("|")) {
      for (String c : form.split("\\|")) {
        if (!c.isBlank()) {
          choices.add(c.strip());
        }
      }
    }
    return new ParamSpec(name, form, m.group(2), m.group(3).strip(), List.copyOf(choices));
  }

  /** The parameters of a protocol, sorted by name. */
  public static List<ParamSpec> of(Protocol protocol) {
    List<ParamSpec> out = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(protocol.parameters()).entrySet()) {
      out.add(of(e.getKey(), e.getValue()));
    }
    return out;
  }
}
