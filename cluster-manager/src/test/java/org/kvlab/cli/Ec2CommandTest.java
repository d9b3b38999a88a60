package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvlab.cluster.ec2.Ec2Emulator;

/** {@code kvlab ec2 up|list|down} against moto, through --endpoint (dummy credentials for the emulator only). */
@Timeout(300)
class Ec2CommandTest {
  static Ec2Emulator emulator;
  static String endpoint;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    emulator = Ec2Emulator.start();
    endpoint = emulator.endpoint.toString();
  }

  @AfterAll
  static void stop() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (emulator != null) {
      emulator.close();
    }
  }

  record Run(int code, String out, String err) {}

  static Run kvlab(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
    try {
      int code = Main.run(args);
      return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  Path clusterFile() throws Exception {
    Path file = dir.resolve("cli.yaml");
    Files.writeString(file, """
        name: cli
        protocol: eventual
        datacenters: 2
        partitions: 1
        local: { basePort: 7400 }
        ec2:
          instanceType: t3.micro
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          amiLookup: { owner: "099720109477", name: "ubuntu/images/hvm-ssd/ubuntu-xenial-16.04-amd64-server-*" }
          user: ubuntu
          owner: carol
        """);
    return file;
  }

  @Test
  void up_list_down_through_the_cli() throws Exception {
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
    Path file = clusterFile();
    String f = file.toString();
    String[] common = {"--endpoint", endpoint, "--state-dir", dir.resolve("state").toString(), "--poll-interval", "100ms"};

    Run dry = kvlab(concat(new String[] {"ec2", "up", f, "--dry-run"}, common));
    assertEquals(Main.OK, dry.code(), dry.err());
    assertTrue(dry.out().contains("dry run: nothing is created"), dry.out());
    assertTrue(dry.out().contains("about USD 0.0318 per hour"), dry.out()); // 0.0104 + 0.0114 + 2 x 0.005 (IPv4)
    Run none = kvlab(concat(new String[] {"ec2", "list", f}, common));
    assertEquals(Main.OK, none.code(), none.err());
    assertTrue(none.out().contains("no kvlab instances of cluster cli"), none.out());

    Run up = kvlab(concat(new String[] {"ec2", "up", f, "--caller-cidr", "198.51.100.9"}, common));
    assertEquals(Main.OK, up.code(), up.out() + up.err());
    assertTrue(up.out().contains("created key pair kvlab-cli-carol in eu-west-1"), up.out());
    assertTrue(up.out().contains("198.51.100.9/32"), up.out());
    assertTrue(up.out().contains("delete them with: kvlab ec2 down " + f), up.out());
    assertFalse(up.out().contains("PRIVATE KEY"), up.out());

    Run list = kvlab(concat(new String[] {"ec2", "list", f}, common));
    assertEquals(Main.OK, list.code(), list.err());
    assertEquals(2, list.out().lines().filter(l -> l.contains(" cli ") && l.contains(" carol ")).count(), list.out());
    assertTrue(list.out().contains("2 instance(s); about USD 0.0318 per hour"), list.out());

    Run wouldDelete = kvlab(concat(new String[] {"ec2", "down", f, "--dry-run"}, common));
    assertEquals(Main.OK, wouldDelete.code(), wouldDelete.err());
    assertEquals(6, wouldDelete.out().lines().filter(l -> l.startsWith("would delete ")).count(), wouldDelete.out());

    Run down = kvlab(concat(new String[] {"ec2", "down", f}, common));
    assertEquals(Main.OK, down.code(), down.err());
    assertTrue(down.out().contains("cluster cli: deleted 7 resource(s)"), down.out()); // 2 instances, 2 groups, 2 keys, key file
    Run after = kvlab(concat(new String[] {"ec2", "list", f}, common));
    assertTrue(after.out().contains("no kvlab instances of cluster cli"), after.out());
  }

  @Test
  void a_cluster_file_error_names_the_line_and_exits_2() throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, "name: bad\nprotocol: eventual\ndatacenters: 1\npartitions: 1\nlocal: { basePort: 7400 }\n"
        + "ec2:\n  regions: [us-east-1]\n  expiryHours: 1000\n");
    Run r = kvlab("ec2", "up", file.toString(), "--dry-run");
    assertEquals(Main.USAGE, r.code());
    assertTrue(r.err().contains(file + ":8:16: ec2.expiryHours: 1000 is out of range. Fix: use a number from 1 to 168"), r.err());
  }

  @Test
  void a_dry_run_refuses_more_instances_than_a_security_group_has_rules_for_and_exits_2() throws Exception {
    Path file = dir.resolve("huge.yaml");
    Files.writeString(file, "name: huge\nprotocol: eventual\ndatacenters: 2\npartitions: 1\nlocal: { basePort: 7400 }\n"
        + "ec2:\n  regions: [us-east-1]\n  instancesPerDatacenter: 30\n");
    Run r = kvlab("ec2", "up", file.toString(), "--dry-run");
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("the cluster's 60 instances need 63 inbound rules"), r.err());
    assertTrue(r.err().contains("Fix: start at most 57 instances"), r.err());
  }

  /** The SDK's real default chain, in a JVM without any AWS variables or files: a clear error, nothing else. */
  @Test
  void without_credentials_the_cli_names_the_cause_and_the_fix() throws Exception {
    Path file = clusterFile();
    CliWithoutAws.Run r = CliWithoutAws.run(dir, "ec2", "list", file.toString(), "--endpoint", endpoint);
    String err = r.err();
    assertEquals(Main.FAILED, r.code(), err);
    assertTrue(err.startsWith("kvlab: no AWS credentials found ("), err);
    assertTrue(err.contains("Fix: give them the AWS SDK's default way: run 'aws configure'"), err);
    assertTrue(err.contains("export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"), err);
  }

  static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
