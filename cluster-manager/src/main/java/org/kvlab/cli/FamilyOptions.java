package org.kvlab.cli;

import java.time.Duration;
import org.kvlab.sim.SimLimits;
import org.kvlab.workload.TxnFamily;
import org.kvlab.workload.chirper.Chirper;
import org.kvlab.workload.chirper.FollowerGraph;
import org.kvlab.workload.tpcc.Tpcc;
import picocli.CommandLine.Option;

/**
 * The options of {@code kvlab sim --txn-workload chirper|tpcc} (docs/workloads.md): the sizes of
 * the family and Chirper's mix and celebrity.
 */
final class FamilyOptions {
  @Option(names = "--users", defaultValue = "1000", description = "--txn-workload chirper: users of the follower graph,"
      + " 2 to 1,000,000 (default: ${DEFAULT-VALUE})") int users;
  @Option(names = "--follows-per-user", defaultValue = "5", description = "--txn-workload chirper: users a joining"
      + " user follows (preferential attachment), 1 to users - 1 (default: ${DEFAULT-VALUE})") int followsPerUser;
  @Option(names = "--post-share", defaultValue = "0.15", description = "--txn-workload chirper: share of posts (the"
      + " rest, after follows, are timeline reads), 0 to 1 (default: ${DEFAULT-VALUE})") double postShare;
  @Option(names = "--follow-share", defaultValue = "0", description = "--txn-workload chirper: share of follows, 0 to"
      + " 1 (default: ${DEFAULT-VALUE})") double followShare;
  @Option(names = "--communities", defaultValue = "1", description = "--txn-workload chirper: communities of the"
      + " follower graph (user u in community u mod N; follows by preferential attachment inside it), 1 to users; with"
      + " more than 1 the celebrity's followers are one community's users (default: ${DEFAULT-VALUE})") int communities;
  @Option(names = "--cross-share", defaultValue = "0.05", description = "--txn-workload chirper --communities: share"
      + " of follows across communities, 0 to 1 (default: ${DEFAULT-VALUE})") double crossShare;
  @Option(names = "--celebrity-at", description = "--txn-workload chirper: when a celebrity appears (the last user:"
      + " from then on 20%% of operations follow it and 10%% are its posts), 0 to 10m, e.g. 200s (default: never)")
  String celebrityAt;
  @Option(names = "--warehouses", defaultValue = "2", description = "--txn-workload tpcc: warehouses, 1 to 1,000"
      + " (default: ${DEFAULT-VALUE})") int warehouses;
  @Option(names = "--customers", defaultValue = "30", description = "--txn-workload tpcc: customers per district"
      + " (10 per warehouse), 1 to 3,000 (default: ${DEFAULT-VALUE})") int customers;
  @Option(names = "--items", defaultValue = "1000", description = "--txn-workload tpcc: items stocked at every"
      + " warehouse, 15 to 100,000 (default: ${DEFAULT-VALUE})") int items;

  static final SimLimits.Whole USERS = new SimLimits.Whole("users", 2, 1_000_000);
  static final SimLimits.Whole WAREHOUSES = new SimLimits.Whole("warehouses", 1, 1_000);
  static final SimLimits.Whole CUSTOMERS = new SimLimits.Whole("customers", 1, 3_000);
  static final SimLimits.Whole ITEMS = new SimLimits.Whole("items", 15, 100_000);
  static final SimLimits.Span CELEBRITY_AT = new SimLimits.Span("celebrity-at", Duration.ZERO, Duration.ofMinutes(10));

  private static final java.util.List<String> CHIRPER = java.util.List.of("--users", "--follows-per-user",
      "--post-share", "--follow-share", "--communities", "--cross-share", "--celebrity-at");
  private static final java.util.List<String> TPCC = java.util.List.of("--warehouses", "--customers", "--items");

  /**
   * Refuses a family option given for another workload (it would be ignored silently).
   *
   * @throws Main.CliException naming the option and the workload it belongs to
   */
  static void refuseStray(String kind, picocli.CommandLine.ParseResult given) {
    for (var owner : java.util.Map.of(Chirper.NAME, CHIRPER, Tpcc.NAME, TPCC).entrySet()) {
      for (String option : owner.getValue()) {
        if (given.hasMatchedOption(option) && !owner.getKey().equals(kind)) {
          throw new Main.CliException(Main.USAGE, option + " applies to --txn-workload " + owner.getKey() + ", not to "
              + (kind == null ? "this run (no --txn-workload)" : "--txn-workload " + kind) + ". Fix: drop " + option
              + " or add --txn-workload " + owner.getKey());
        }
      }
    }
  }

  /** Whether {@code kind} is a workload family rather than a black-box checker workload. */
  static boolean isFamily(String kind) {
    return Chirper.NAME.equals(kind) || Tpcc.NAME.equals(kind);
  }

  /**
   * The family {@code kind} with these options.
   *
   * @throws SimLimits.SettingException for a count out of its range
   * @throws Main.CliException for a combination the family refuses
   */
  TxnFamily family(String kind) {
    try {
      if (kind.equals(Chirper.NAME)) {
        USERS.check(users);
        long at = celebrityAt == null ? -1 : CELEBRITY_AT.check(celebrityAt).toNanos() / 1000;
        FollowerGraph.Spec graph = new FollowerGraph.Spec(users, followsPerUser, 1);
        return new Chirper(communities == 1 ? graph : graph.withCommunities(communities, crossShare), 0.95, postShare,
            followShare, 1000, at, users - 1, 0.2, 0.1);
      }
      WAREHOUSES.check(warehouses);
      CUSTOMERS.check(customers);
      ITEMS.check(items);
      return new Tpcc(warehouses, 10, customers, items, 0.01, 0.15);
    } catch (SimLimits.SettingException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new Main.CliException(Main.USAGE, "--txn-workload " + kind + ": " + e.getMessage());
    }
  }

  /** The options of {@code kind} as a replay command gives them. */
  String replay(String kind) {
    if (kind.equals(Chirper.NAME)) {
      return " --users " + users + " --follows-per-user " + followsPerUser + " --post-share " + postShare
          + " --follow-share " + followShare + (communities == 1 ? "" : " --communities " + communities
          + " --cross-share " + crossShare) + (celebrityAt == null ? "" : " --celebrity-at " + celebrityAt);
    }
    return " --warehouses " + warehouses + " --customers " + customers + " --items " + items;
  }
}
