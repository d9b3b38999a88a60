package org.kvlab.protocols.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvlab.sim.SimResult;
import org.kvlab.sim.Simulation;

/**
 * A seed replays exactly under faults. A fresh class loader stands for a fresh JVM: it gives the protobuf classes new
 * descriptors and so new identity hash codes, which a message's {@code hashCode()} mixes in. COPS once kept its
 * waiting versions by dependency in a {@code HashMap<Dep, ...>} and resent its dep_checks in that map's order (its
 * port to the kit, in a {@code HashSet<Dep>}), so two JVMs ran the same seed differently (17,275 and 17,276
 * messages for seed 5 in one command).
 */
class CopsReplayTest {
  static final long[] SEEDS = {1, 2, 3};

  /** The fingerprints of {@link #SEEDS} under {@link CopsCheckedSimTest#FAULTY}; called in a fresh class loader too. */
  public static List<String> fingerprints() {
    List<String> out = new ArrayList<>();
    for (long seed : SEEDS) {
      SimResult r = new Simulation(CopsCheckedSimTest.FAULTY.withTrace(true), new Cops(), seed).run();
      out.add(seed + ": " + r.history().size() + " ops, trace " + r.trace().fingerprint()
          + (r.failed() ? ", failed: " + r.failures() : ""));
    }
    return out;
  }

  @Test
  void when_sameSeedRunsTwiceInOneJvm_then_theTracesAreIdentical() {
    assertEquals(fingerprints(), fingerprints());
  }

  @Test
  void when_sameSeedRunsUnderFreshProtobufDescriptors_then_theTracesAreIdentical() throws Exception {
    List<String> here = fingerprints();
    assertTrue(here.stream().noneMatch(f -> f.contains(": 0 ops") || f.contains("failed")),
        "the seeds should do work without failing: " + here);
    for (int i = 0; i < 2; i++) {
      try (URLClassLoader fresh = new URLClassLoader(classPath(), ClassLoader.getPlatformClassLoader())) {
        Class<?> test = fresh.loadClass(CopsReplayTest.class.getName());
        assertNotSame(CopsReplayTest.class, test, "the class must come from the fresh loader");
        Method fingerprints = test.getMethod("fingerprints");
        fingerprints.setAccessible(true); // the test class is package-private
        assertEquals(here, fingerprints.invoke(null), "run " + i + " in a fresh class loader");
      }
    }
  }

  private static URL[] classPath() throws MalformedURLException {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(new File(entry).toURI().toURL()); // a manifest-only jar (surefire) brings its Class-Path along
    }
    return urls.toArray(URL[]::new);
  }
}
