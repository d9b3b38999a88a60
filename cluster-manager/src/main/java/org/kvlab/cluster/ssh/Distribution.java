package org.kvlab.cluster.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What a host needs to run kvlab servers: the jars of the class path, in order, each with its SHA-256.
 * Normally the one shaded jar {@code cluster-manager/target/kvlab.jar} ({@link #shadedJar}); tests use
 * the class path they run with ({@link #fromClassPath}). A host keeps each distribution in
 * {@code <dir>/dist/<id>/}, where {@link #id()} is derived from the files' checksums, so a second deploy of
 * the same build uploads nothing.
 */
public final class Distribution {
  /** One jar: where it is here, its name on the hosts, its SHA-256 in hex. */
  public record FileEntry(Path local, String name, String sha256) {}

  private final List<FileEntry> files;
  private final String id;

  private Distribution(List<FileEntry> files) {
    this.files = List.copyOf(files);
    StringBuilder all = new StringBuilder();
    files.forEach(f -> all.append(f.sha256()).append("  ").append(f.name()).append('\n'));
    this.id = sha256(all.toString().getBytes(StandardCharsets.UTF_8)).substring(0, 16);
  }

  public List<FileEntry> files() {
    return files;
  }

  /** Names this build: the first 16 hex digits of the SHA-256 of the files' checksums and names. */
  public String id() {
    return id;
  }

  /** The SHA256SUMS file (sha256sum -c format). */
  public String checksums() {
    StringBuilder sb = new StringBuilder();
    files.forEach(f -> sb.append(f.sha256()).append("  ").append(f.name()).append('\n'));
    return sb.toString();
  }

  public long bytes() {
    long n = 0;
    for (FileEntry f : files) {
      try {
        n += Files.size(f.local());
      } catch (IOException e) {
        // counted as 0
      }
    }
    return n;
  }

  /** The shaded kvlab jar alone (built by {@code mvn package}: cluster-manager/target/kvlab.jar). */
  public static Distribution shadedJar(Path jar) throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IOException("the kvlab distribution " + jar + " does not exist. Fix: build it (mvn -B -DskipTests"
          + " package, or ./kvlab once)");
    }
    return new Distribution(List.of(new FileEntry(jar, "kvlab.jar", sha256(jar))));
  }

  /**
   * The entries of a class path (e.g. {@code java.class.path}): jars as they are, directories of classes
   * packed into jars under {@code workDir}. Entries that do not exist are left out.
   */
  public static Distribution fromClassPath(String classPath, Path workDir) throws IOException {
    Files.createDirectories(workDir);
    List<FileEntry> files = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int i = 0;
    for (String entry : classPath.split(java.io.File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path p = Path.of(entry);
      Path jar;
      if (Files.isDirectory(p)) {
        jar = workDir.resolve(String.format("%03d-classes.jar", i));
        packDirectory(p, jar);
      } else if (Files.isRegularFile(p) && entry.endsWith(".jar")) {
        jar = p;
      } else {
        continue;
      }
      String name = String.format("%03d-%s", i++, jar.getFileName().toString().replaceFirst("^\\d{3}-", ""));
      if (names.add(name)) {
        files.add(new FileEntry(jar, name, sha256(jar)));
      }
    }
    return new Distribution(files);
  }

  private static void packDirectory(Path dir, Path jar) throws IOException {
    List<Path> all;
    try (Stream<Path> s = Files.walk(dir)) {
      all = s.filter(Files::isRegularFile).sorted().toList();
    }
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
      for (Path f : all) {
        JarEntry e = new JarEntry(dir.relativize(f).toString().replace('\\', '/'));
        e.setTime(0); // same content, same checksum
        j.putNextEntry(e);
        Files.copy(f, j);
        j.closeEntry();
      }
    }
  }

  static String sha256(Path file) throws IOException {
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
      byte[] buf = new byte[1 << 16];
      while (in.read(buf) >= 0) {
        // digesting
      }
      return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
