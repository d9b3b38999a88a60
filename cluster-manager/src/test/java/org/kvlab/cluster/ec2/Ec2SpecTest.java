package org.kvlab.cluster.ec2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;

/** The ec2: section of cluster files: defaults, and errors at file:line:column with the fix. */
class Ec2SpecTest {
  static final String HEAD = "name: wan\nprotocol: eventual\ndatacenters: 2\npartitions: 3\nlocal: { basePort: 7100 }\n";

  static Ec2Spec parse(String ec2) throws ConfigException {
    String yaml = HEAD + ec2;
    ClusterConfig config = ClusterConfig.parse(yaml, "c.yaml");
    return Ec2Spec.parse(yaml, "c.yaml", config);
  }

  static void fails(String ec2, String... expected) throws ConfigException {
    ConfigException e = assertThrows(ConfigException.class, () -> parse(ec2));
    for (String s : expected) {
      assertTrue(e.getMessage().contains(s), "'" + s + "' not in: " + e.getMessage());
    }
    assertTrue(e.getMessage().contains(". Fix: "), e.getMessage());
  }

  @Test
  void a_full_section_is_read() throws ConfigException {
    Ec2Spec s = parse("""
        ec2:
          instanceType: c5.large
          regions: [us-east-1, eu-west-1]
          regionPerDatacenter: true
          ami: { us-east-1: ami-0123456789abcdef0, eu-west-1: ami-0fedcba9876543210 }
          instancesPerDatacenter: 4
          user: ec2-user
          spot: { maxWait: 2m, then: fail }
          expiryHours: 8
          owner: alice
        """);
    assertEquals("c5.large", s.instanceType());
    assertEquals(List.of("us-east-1", "eu-west-1"), s.regions());
    assertEquals("us-east-1", s.region(0));
    assertEquals("eu-west-1", s.region(1));
    assertEquals(Map.of("us-east-1", "ami-0123456789abcdef0", "eu-west-1", "ami-0fedcba9876543210"), s.ami());
    assertNull(s.lookup());
    assertEquals(4, s.instancesPerDatacenter());
    assertEquals("ec2-user", s.user());
    assertEquals(new Ec2Spec.Spot(Duration.ofMinutes(2), false), s.spot());
    assertEquals(Duration.ofHours(8), s.expiry());
    assertEquals("alice", s.owner());
  }

  @Test
  void defaults_are_debian_on_demand_one_instance_per_partition_for_four_hours() throws ConfigException {
    Ec2Spec s = parse("ec2:\n  regions: [eu-central-1]\n");
    assertEquals(Ec2Spec.DEFAULT_LOOKUP, s.lookup());
    assertEquals("admin", s.user());
    assertEquals("t3.small", s.instanceType());
    assertEquals(3, s.instancesPerDatacenter());
    assertNull(s.spot());
    assertEquals(Duration.ofHours(4), s.expiry());
    assertEquals("eu-central-1", s.region(0));
    assertEquals("eu-central-1", s.region(1), "one region holds both datacenters");
    assertTrue(!s.owner().isEmpty());
  }

  @Test
  void errors_name_the_line_and_column_and_the_fix() throws ConfigException {
    fails("ec2:\n  regions: [us-east-1]\n  regionPerDatacenter: true\n", "c.yaml:7:12: ec2.regions: names 1 region(s) but the"
        + " cluster has 2 datacenters", "list exactly one region per datacenter");
    fails("ec2:\n  regions: [us-east-1, eu-west-1]\n", "c.yaml:7:12", "regionPerDatacenter is not true");
    fails("ec2:\n  regions: [us-east-1]\n  instanceTyp: t3.small\n", "c.yaml:8:3", "unknown key 'instanceTyp'",
        "did you mean 'instanceType'?");
    fails("ec2:\n  regions: [us-east]\n", "c.yaml:7:13: ec2.regions[0]: 'us-east' is not an AWS region name");
    fails("ec2:\n  regions: [us-east-1, eu-west-1]\n  regionPerDatacenter: true\n  ami: { us-east-1: ami-0123456789abcdef0 }\n",
        "c.yaml:9:8: ec2.ami: has no AMI for region eu-west-1", "or use 'amiLookup' instead");
    fails("ec2:\n  regions: [us-east-1]\n  ami: { us-east-1: ubuntu }\n", "'ubuntu' is not an AMI id");
    fails("ec2:\n  regions: [us-east-1]\n  spot: { then: maybe }\n", "c.yaml:8:17", "'maybe' is not what to do",
        "'then: on-demand'");
    fails("ec2:\n  regions: [us-east-1]\n  expiryHours: 0\n", "c.yaml:8:16: ec2.expiryHours: 0 is out of range",
        "from 1 to 168");
    fails("ec2:\n  regions: [us-east-1]\n  instanceType: big\n", "'big' is not an EC2 instance type");
  }

  @Test
  void a_file_without_an_ec2_section_is_told_how_to_add_one() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> Ec2Spec.parse(HEAD, "c.yaml", ClusterConfig.parse(HEAD, "c.yaml")));
    assertTrue(e.getMessage().contains("the cluster file has no 'ec2:' section. Fix: add one"), e.getMessage());
  }

  @Test
  void the_price_table_is_dated_and_names_its_source() {
    PriceTable p = PriceTable.bundled();
    assertTrue(p.date().getYear() >= 2026, p.date().toString());
    assertTrue(p.source().contains("aws.amazon.com/ec2/pricing"), p.source());
    assertEquals(new BigDecimal("0.0208"), p.usdPerHour("us-east-1", "t3.small").orElseThrow());
    assertTrue(p.usdPerHour("us-east-1", "x9.huge").isEmpty());
  }

  @Test
  void the_user_data_arms_the_expiry_from_the_instances_own_clock_before_installing_the_jdk() {
    String s = UserData.script("wan", "alice", Duration.ofHours(3), Instant.parse("2026-11-24T15:00:00Z"));
    assertTrue(s.startsWith("#!/bin/bash\n"));
    // a relative lifetime: the expiry is computed on the instance, not from the clock of the machine that ran up
    assertTrue(s.contains("LIFETIME_MINUTES=180\n"), s);
    assertTrue(s.contains("EXPIRES=$(date -u -d \"+$LIFETIME_MINUTES minutes\""), s);
    assertTrue(s.contains("OnCalendar=$EXPIRES"), s);
    assertTrue(s.contains("shutdown -h +\"$LIFETIME_MINUTES\""), s);
    assertFalse(s.contains("2026-11-24 15:00:00"), "no absolute time from the caller's clock drives the expiry");
    assertTrue(s.indexOf("shutdown -h +") < s.indexOf("apt-get"), s);
  }

  @Test
  void the_user_data_waits_for_the_dpkg_lock_retries_and_marks_success_or_failure() {
    String s = UserData.script("wan", "alice", Duration.ofHours(4), Instant.parse("2026-11-24T16:00:00Z"));
    // Debian cloud images run unattended-upgrades at first boot: apt-get must wait for the lock, not fail at once
    assertTrue(s.contains("apt-get -o DPkg::Lock::Timeout=" + UserData.APT_LOCK_TIMEOUT_S), s);
    assertTrue(UserData.APT_LOCK_TIMEOUT_S >= 300, "unattended-upgrades may hold the lock for minutes");
    assertTrue(s.contains("retry $APT update -qq && retry $APT install -y -qq openjdk-17-jdk-headless"), s);
    assertTrue(s.contains("for try in $(seq 1 " + UserData.APT_TRIES + ")"), s);
    assertTrue(s.contains("exec >>" + UserData.LOG + " 2>&1"), s);
    assertTrue(s.contains("touch " + UserData.READY + "\n"), s);
    assertTrue(s.contains("touch " + UserData.FAILED + "\n"), s);
    assertTrue(s.indexOf("touch " + UserData.READY) < s.indexOf("touch " + UserData.FAILED));
  }

  @Test
  void the_boot_check_reads_ready_failed_and_booting_without_waiting_out_a_failed_install() {
    assertTrue(BootCheck.command("java").contains("[ -f /var/lib/kvlab-ready ]"), BootCheck.command("java"));
    assertTrue(BootCheck.command("java").contains("cloud-init status"), BootCheck.command("java"));
    assertEquals(BootCheck.State.READY, BootCheck.read(true, "kvlab-ready\nopenjdk version \"17.0.9\"").state());
    BootCheck.Result failed = BootCheck.read(true, "kvlab-failed\nE: Could not get lock /var/lib/dpkg/lock-frontend");
    assertEquals(BootCheck.State.FAILED, failed.state());
    assertTrue(failed.detail().contains("Could not get lock"), failed.detail());
    assertEquals(BootCheck.State.FAILED, BootCheck.read(true, "kvlab-booting error").state(),
        "cloud-init ended in error without the ready mark: fail now, not after the whole wait");
    assertEquals(BootCheck.State.FAILED, BootCheck.read(true, "kvlab-booting done").state());
    assertEquals(BootCheck.State.BOOTING, BootCheck.read(true, "kvlab-booting running").state());
    assertEquals(BootCheck.State.BOOTING, BootCheck.read(true, "kvlab-booting ").state());
    assertEquals(BootCheck.State.FAILED, BootCheck.read(false, "kvlab-ready\njava: not found").state());
  }

  @Test
  void graviton_types_look_up_arm64_debian_by_default() throws ConfigException {
    Ec2Spec arm = parse("ec2:\n  instanceType: t4g.small\n  regions: [eu-central-1]\n");
    assertEquals(Ec2Spec.DEFAULT_LOOKUP_ARM, arm.lookup());
    assertEquals("debian-12-arm64-*", arm.lookup().name());
    assertEquals(Ec2Spec.DEFAULT_LOOKUP, parse("ec2:\n  instanceType: c5.large\n  regions: [eu-central-1]\n").lookup());
    assertEquals(Ec2Spec.DEFAULT_LOOKUP_ARM, parse("ec2:\n  instanceType: m7g.large\n  regions: [eu-central-1]\n").lookup());
  }

  @Test
  void rule_descriptions_are_checked_against_the_characters_aws_allows() {
    // AWS: a-z, A-Z, 0-9, spaces and ._-:/()#,@[]+=;{}!$* (a group reference's description has no &)
    for (String ok : List.of("kvlab caller (SSH)", "a-z A-Z 0-9 ._-:/()#,@[]+=;{}!$*")) {
      assertEquals(ok, Ingress.description(ok));
    }
    for (String bad : List.of("the cluster's own instances", "caf\u00e9", "a&b", "x\"y", "a".repeat(256))) {
      assertThrows(IllegalArgumentException.class, () -> Ingress.description(bad), bad);
    }
    int[] ports = {7100, 7105};
    List<Ingress.Rule> all = new java.util.ArrayList<>(Ingress.base("sg-1", "203.0.113.7/32", 22, ports));
    all.addAll(Ingress.instances(List.of("54.1.2.3", "3.4.5.6"), ports));
    for (Ingress.Rule r : all) {
      assertTrue(Ingress.DESCRIPTION.matcher(r.description()).matches(), r.toString());
    }
  }

  @Test
  void the_ssh_key_has_a_length_importkeypair_documents() {
    assertTrue(List.of(2048, 4096).contains(SshKeys.BITS), "EC2's ImportKeyPair lists RSA 1024, 2048 and 4096");
  }

  @Test
  void the_public_key_is_in_openssh_format_with_the_generated_size() {
    var pair = SshKeys.generate();
    String pub = SshKeys.openSshPublicKey(pair, "kvlab-wan-alice");
    assertTrue(pub.startsWith("ssh-rsa AAAAB3NzaC1yc2E"), pub);
    assertTrue(pub.endsWith(" kvlab-wan-alice"));
    assertEquals(SshKeys.BITS, SshKeys.modulusBits(pub));
  }
}
