package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.config.ClusterConfig;

/**
 * The example cluster file with an {@code ec2:} section (issue 27): it loads, and a user's first
 * {@code kvlab ec2 up --dry-run} on it succeeds without AWS credentials and without the network.
 */
class Ec2ExampleTest {
  private static final Path EXAMPLE = Path.of("..", "examples", "eventual-2dc-3p-ec2.yaml").toAbsolutePath().normalize();

  @TempDir Path dir;

  @Test
  void when_theExampleIsLoaded_then_itsEc2SectionIsWhatItsCommentsSay() throws Exception {
    ClusterConfig config = ClusterConfig.load(EXAMPLE);
    Ec2Spec spec = Ec2Spec.load(EXAMPLE, config);
    assertEquals(2, config.topology().datacenters());
    assertEquals("t3.small", spec.instanceType());
    assertEquals(List.of("us-east-1", "eu-west-1"), spec.regions());
    assertTrue(spec.regionPerDatacenter());
    assertEquals(Ec2Spec.DEFAULT_LOOKUP, spec.lookup());
    assertEquals("admin", spec.user());
    assertEquals(3, spec.instancesPerDatacenter());
    assertEquals(Duration.ofHours(4), spec.expiry());
  }

  /** In a child JVM with no AWS variables, no ~/.aws, no instance metadata, and an endpoint nothing listens on. */
  @Test
  void when_dryRunOnTheExample_then_itShowsThePlanWithoutCredentialsOrNetwork() throws Exception {
    CliWithoutAws.Run r = CliWithoutAws.run(dir, "ec2", "up", EXAMPLE.toString(), "--dry-run", "--endpoint",
        "http://127.0.0.1:9", "--state-dir", dir.resolve("state").toString());
    String out = r.out();
    assertEquals(Main.OK, r.code(), out + r.err());
    assertTrue(out.contains("dry run: nothing is created"), out);
    assertTrue(out.contains("us-east-1") && out.contains("eu-west-1"), out);
    assertTrue(out.contains("per hour"), out); // the cost estimate from the bundled price table
    assertTrue(Files.notExists(dir.resolve("state")), "a dry run writes no key");
  }

  @Test
  void when_aClusterFileHasNoEc2Section_then_theErrorPointsToTheExample() throws Exception {
    Path plain = Path.of("..", "examples", "eventual-2dc-3p.yaml").toAbsolutePath().normalize();
    InProcessCli.Run r = InProcessCli.run("ec2", "up", plain.toString(), "--dry-run");
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("has no 'ec2:' section. Fix: add one"), r.err());
    assertTrue(r.err().contains("examples/eventual-2dc-3p-ec2.yaml is a whole cluster file with one"), r.err());
  }
}
