package org.kvlab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvlab.cli.InProcessCli.Run;

/**
 * Goal (issue 28): {@code bench --dry-run} refuses what the real run would fail on, before any cluster or client
 * starts: a YCSB property value YCSB cannot take, an absurd duration, a broken hosts file of {@code --backend ssh}.
 * Method: {@code kvlab bench FILE --dry-run} in this JVM; exit 2 and an error that names the file, line and column,
 * the key, the value and the fix.
 */
class BenchDryRunTest {
  private static final String BASE = "name: t\ncluster: { datacenters: 2, partitions: 1 }\nprotocols: [eventual]\n";

  @TempDir Path dir;

  /** {@code kvlab bench FILE --dry-run OPTIONS} in this JVM. */
  private static Run dryRun(Path file, String... options) {
    String[] args = new String[options.length + 3];
    args[0] = "bench";
    args[1] = file.toString();
    args[2] = "--dry-run";
    System.arraycopy(options, 0, args, 3, options.length);
    return InProcessCli.run(args);
  }

  private Path experiment(String yaml) throws Exception {
    Path file = dir.resolve("x.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  /** Each row: the lines after {@link #BASE}, then what the error must say (its line:col, key and value, its fix). */
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      duration: 2s\\nworkload:\\n  fieldlength: NaN                | 6:16: workload.fieldlength: 'NaN' is not a whole number | Fix: write a whole number from 1 to 2147483647
      duration: 2s\\nworkload:\\n  fieldlength: 0                  | 6:16: workload.fieldlength: 0 is out of range | Fix: write a whole number from 1
      duration: 2s\\nworkload:\\n  fieldcount: 1.5                 | 6:15: workload.fieldcount: '1.5' is not a whole number | Fix: write a whole number
      duration: 2s\\nworkload:\\n  requestdistribution: abc        | 6:24: workload.requestdistribution: 'abc' is not a requestdistribution YCSB knows | Fix: use one of uniform, zipfian, latest, hotspot, sequential, exponential
      duration: 2s\\nworkload:\\n  fieldlengthdistribution: gauss  | 6:28: workload.fieldlengthdistribution: 'gauss' is not a fieldlengthdistribution YCSB knows | Fix: use one of constant, uniform, zipfian, histogram
      duration: 2s\\nworkload:\\n  scanlengthdistribution: latest | 6:27: workload.scanlengthdistribution: 'latest' is not a scanlengthdistribution YCSB knows | Fix: use one of uniform, zipfian
      duration: 2s\\nworkload:\\n  readproportion: NaN             | 6:19: workload.readproportion: 'NaN' is not a proportion | Fix: write a number from 0 to 1
      duration: 2s\\nworkload:\\n  hotspotopnfraction: 1.2         | 6:23: workload.hotspotopnfraction: '1.2' is not a proportion | Fix: write a number from 0 to 1
      duration: 2s\\nworkload:\\n  readallfields: yes              | 6:18: workload.readallfields: 'yes' is not true or false | Fix: write true or false
      duration: 2s\\nworkload:\\n  minscanlength: 50\\n  maxscanlength: 10 | 6:18: workload.minscanlength: minscanlength 50 is more than maxscanlength 10 | Fix: make minscanlength at most maxscanlength
      duration: 2s\\nworkload:\\n  dataintegrity: true\\n  fieldlengthdistribution: zipfian | 6:18: workload.dataintegrity: dataintegrity needs fieldlengthdistribution constant | Fix: remove dataintegrity
      duration: 2s\\nsweep:\\n  requestdistribution: [zipfian, abc] | 6:34: sweep.requestdistribution[1]: 'abc' is not a requestdistribution YCSB knows | Fix: use one of uniform
      duration: 2s\\nwarmup: 1000000h                              | 5:9: warmup: '1000000h' is longer than 24h, the longest warmup bench runs | Fix: write at most 24h
      duration: 25h                                                | 4:11: duration: '25h' is longer than 24h, the longest duration bench runs | Fix: write at most 24h
      """)
  void when_aValueYcsbCannotTakeIsGiven_then_theDryRunRefusesItAtItsLine(String lines, String where, String fix)
      throws Exception {
    Path file = experiment(BASE + lines.replace("\\n", "\n") + "\n");
    Run r = dryRun(file);
    assertEquals(Main.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(file + ":" + where), r.err());
    assertTrue(r.err().contains(fix), r.err());
    assertTrue(r.out().isEmpty(), "no run is listed: " + r.out());
  }

  @Test
  void when_theValuesAreValid_then_theDryRunListsTheRuns() throws Exception {
    Path file = experiment(BASE + "duration: 24h\nwarmup: 10m\nworkload:\n  fieldlength: 64\n  requestdistribution: latest\n"
        + "  readallfields: false\n  minfieldlength: 8\nsweep:\n  requestdistribution: [zipfian, hotspot]\n");
    Run r = dryRun(file);
    assertEquals(Main.OK, r.code(), r.err());
    assertTrue(r.out().contains("run 2/2 eventual requestdistribution=hotspot"), r.out());
  }

  @Test
  void when_theHostsFileOfSshIsBroken_then_theDryRunRefusesIt() throws Exception {
    Path file = experiment(BASE + "duration: 2s\n");
    Path hosts = dir.resolve("hosts.yaml");
    Files.writeString(hosts, "ssh:\n  user: alice\n  keyFile: /nonexistent/id\ndatacenters: 10.0.0.1\n");
    Run broken = dryRun(file, "--backend", "ssh", "--hosts", hosts.toString());
    assertEquals(Main.USAGE, broken.code(), broken.out() + broken.err());
    assertTrue(broken.err().contains(hosts + ":4:14: datacenters: 'datacenters' must be a list"), broken.err());
    assertTrue(broken.out().isEmpty(), broken.out());

    Files.writeString(hosts, "ssh:\n  user: alice\n  keyFile: /nonexistent/id\ndatacenters:\n  - servers: [10.0.0.1]\n");
    Run short1 = dryRun(file, "--backend", "ssh", "--hosts", hosts.toString());
    assertEquals(Main.USAGE, short1.code(), short1.out() + short1.err());
    assertTrue(short1.err().contains("the cluster has 2 datacenters, and the hosts file lists hosts for 1. Fix:"),
        short1.err());

    Run missing = dryRun(file, "--backend", "ssh");
    assertEquals(Main.USAGE, missing.code());
    assertTrue(missing.err().contains("--backend ssh needs --hosts FILE. Fix:"), missing.err());

    Run unknown = dryRun(file, "--backend", "sssh");
    assertEquals(Main.USAGE, unknown.code());
    assertTrue(unknown.err().contains("--backend sssh is not a backend. Fix:"), unknown.err());
  }

  @Test
  void when_theHostsFileIsGood_then_theDryRunListsTheRunsWithoutConnecting() throws Exception {
    Path file = experiment(BASE + "duration: 2s\n");
    Path hosts = dir.resolve("hosts.yaml");
    Files.writeString(hosts, "ssh:\n  user: alice\n  keyFile: /nonexistent/id\ndatacenters:\n"
        + "  - servers: [192.0.2.1]\n  - servers: [192.0.2.2]\n"); // TEST-NET-1: never dialled
    Run r = dryRun(file, "--backend", "ssh", "--hosts", hosts.toString());
    assertEquals(Main.OK, r.code(), r.err());
    assertTrue(r.out().contains("run 1/1 eventual base"), r.out());
  }

  @Test
  void when_theEc2FileIsBroken_then_theDryRunRefusesIt() throws Exception {
    Path file = experiment(BASE + "duration: 2s\n");
    Path ec2 = Files.writeString(dir.resolve("ec2.yaml"), "ec2:\n  regions: [us-east-1]\n  expiryHours: 1000\n");
    Run broken = dryRun(file, "--backend", "ec2", "--hosts", ec2.toString());
    assertEquals(Main.USAGE, broken.code(), broken.out() + broken.err());
    assertTrue(broken.err().contains(ec2 + ":3:16: ec2.expiryHours: 1000 is out of range. Fix:"), broken.err());
    Files.writeString(ec2, "ec2:\n  regions: [us-east-1]\n");
    Run good = dryRun(file, "--backend", "ec2", "--hosts", ec2.toString());
    assertEquals(Main.OK, good.code(), good.err());
  }
}
