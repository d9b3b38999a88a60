package org.kvlab.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvlab new-protocol NAME}: a protocol module under protocols/NAME of this checkout, rendered from
 * the archetype's files (templates/src/main/resources/archetype-resources, the same files
 * {@code mvn archetype:generate} uses) and wired in: root pom modules and dependencyManagement,
 * cluster-manager's dependencies.
 */
@Command(name = "new-protocol", mixinStandardHelpOptions = true,
    description = {"Create a protocol module protocols/NAME from the template (proto, plug-in, server, client,"
        + " ServiceLoader file, simulator and determinism tests, cluster file, experiment) and register it in the"
        + " build. Then: mvn -q -pl protocols/NAME -am test; ./kvlab sim --protocol NAME; see docs/tutorial.md."})
final class NewProtocolCommand implements Callable<Integer> {
  static final List<String> LIKE = List.of("eventual");

  @Parameters(index = "0", paramLabel = "NAME", description = "lower-case letters and digits, starting with a letter (e.g. cops)")
  String name;

  @Option(names = "--like", defaultValue = "eventual", description = "the protocol to start from (default and only template: ${DEFAULT-VALUE})")
  String like;

  @Option(names = "--root", description = "the kvlab checkout (default: the nearest parent of the working directory with kvlab's pom.xml)")
  Path root;

  @Override
  public Integer call() {
    try {
      Path created = create(root != null ? root : findRoot(Path.of("").toAbsolutePath()), name, like);
      System.out.println("created " + created + " and registered it in pom.xml and cluster-manager/pom.xml");
      System.out.println("next: mvn -q -pl protocols/" + name + " -am test ; ./kvlab sim --protocol " + name
          + " --seeds 1..20 --faults partition,crash --check convergence ; docs/tutorial.md");
      return Main.OK;
    } catch (IllegalArgumentException e) {
      System.err.println("kvlab new-protocol: " + e.getMessage());
      return Main.USAGE;
    }
  }

  static Path findRoot(Path from) {
    for (Path p = from; p != null; p = p.getParent()) {
      if (Files.isDirectory(templates(p)) && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalArgumentException("no kvlab checkout (a directory with pom.xml and templates/) above " + from
        + ". Fix: run it inside the kvlab checkout, or pass --root DIR");
  }

  private static Path templates(Path root) {
    return root.resolve("templates/src/main/resources/archetype-resources");
  }

  /** Renders the module and registers it; returns its directory. */
  static Path create(Path root, String name, String like) {
    if (name == null || !name.matches("[a-z][a-z0-9]*")) {
      throw new IllegalArgumentException("protocol name '" + name + "' is not lower-case letters and digits starting"
          + " with a letter. Fix: e.g. kvlab new-protocol cops");
    }
    if (!LIKE.contains(like)) {
      throw new IllegalArgumentException("--like " + like + " is not a template. Fix: use one of " + LIKE);
    }
    Path module = root.resolve("protocols").resolve(name);
    if (Files.exists(module)) {
      throw new IllegalArgumentException(module + " exists already. Fix: choose another name, or delete it first");
    }
    String className = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
    String pkg = "org.kvlab.protocols." + name;
    Map<String, String> vars = Map.of("protocolName", name, "ProtocolName", className, "package", pkg,
        "artifactId", "kvlab-protocol-" + name, "groupId", "org.kvlab");
    Path rootPom = root.resolve("pom.xml");
    Path cmPom = root.resolve("cluster-manager/pom.xml");
    String pom = read(rootPom);
    String cm = read(cmPom);
    String artifact = "kvlab-protocol-" + name;
    if (pom.contains("<artifactId>" + artifact + "</artifactId>")) {
      throw new IllegalArgumentException("pom.xml already names " + artifact + ". Fix: choose another name");
    }
    Path templates = templates(root);
    try (Stream<Path> files = Files.walk(templates)) {
      for (Path src : files.filter(Files::isRegularFile).toList()) {
        String rel = templates.relativize(src).toString().replace('\\', '/');
        String target = render(rel.replace("__protocolName__", name).replace("__ProtocolName__", className), vars);
        if (target.startsWith("src/main/java/") || target.startsWith("src/test/java/")) { // packaged="true"
          target = target.substring(0, 14) + pkg.replace('.', '/') + "/" + target.substring(14);
        }
        Path out = module.resolve(target);
        Files.createDirectories(out.getParent());
        Files.writeString(out, render(Files.readString(src, StandardCharsets.UTF_8), vars), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    write(rootPom, insertAfterLast(insertAfterLast(pom, "<module>protocols/", "    <module>protocols/" + name + "</module>", rootPom),
        "<artifactId>kvlab-protocol-", "      <dependency><groupId>org.kvlab</groupId><artifactId>" + artifact
            + "</artifactId><version>${project.version}</version></dependency>", rootPom));
    write(cmPom, insertAfterLast(cm, "<artifactId>kvlab-protocol-",
        "    <dependency><groupId>org.kvlab</groupId><artifactId>" + artifact + "</artifactId></dependency>", cmPom));
    return module;
  }

  /** The archetype's Velocity variables ${name}; the templates use no other Velocity syntax. */
  static String render(String text, Map<String, String> vars) {
    String out = text;
    for (Map.Entry<String, String> v : vars.entrySet()) {
      out = out.replace("${" + v.getKey() + "}", v.getValue());
    }
    return out;
  }

  /** Inserts {@code line} after the last line containing {@code marker}. */
  private static String insertAfterLast(String text, String marker, String line, Path file) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (lines.get(i).contains(marker)) {
        lines.add(i + 1, line);
        return String.join("\n", lines);
      }
    }
    throw new IllegalArgumentException(file + " has no line with " + marker + ". Fix: add the module by hand"
        + " (docs/writing-a-protocol.md, section 5)");
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + p + ": " + e.getMessage() + ". Fix: run in a kvlab checkout");
    }
  }

  private static void write(Path p, String text) {
    try {
      Files.writeString(p, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
