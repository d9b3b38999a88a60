package org.kvlab.cli;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.kvlab.cluster.ec2.AddressMapper;
import org.kvlab.cluster.ec2.CallerAddress;
import org.kvlab.cluster.ec2.Ec2Clients;
import org.kvlab.cluster.ec2.Ec2Cluster;
import org.kvlab.cluster.ec2.Ec2Error;
import org.kvlab.cluster.ec2.Ec2Host;
import org.kvlab.cluster.ec2.Ec2Instance;
import org.kvlab.cluster.ec2.Ec2Listener;
import org.kvlab.cluster.ec2.Ec2Plan;
import org.kvlab.cluster.ec2.Ec2Provisioner;
import org.kvlab.cluster.ec2.Ec2Resource;
import org.kvlab.cluster.ec2.Ec2Spec;
import org.kvlab.cluster.ec2.PriceTable;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** EC2 instances for a cluster file's {@code ec2:} section (docs/ec2.md): a thin front end to {@link Ec2Provisioner}. */
@Command(name = "ec2", mixinStandardHelpOptions = true,
    description = "Create, list and delete the EC2 instances of a cluster (docs/ec2.md).",
    subcommands = {Ec2Command.Up.class, Ec2Command.ListCmd.class, Ec2Command.Down.class})
final class Ec2Command {
  /** Options every subcommand takes. */
  static final class Common {
    @Parameters(index = "0", description = "the cluster file, with an ec2: section")
    Path file;

    @Option(names = "--endpoint", description = "EC2 endpoint URL instead of AWS's (an emulator, e.g. http://127.0.0.1:5000)")
    String endpoint;

    @Option(names = "--state-dir", hidden = true, defaultValue = ".kvlab/ec2", description = "where cluster keys are kept")
    Path stateDir;

    @Option(names = "--poll-interval", hidden = true, defaultValue = "5s", description = "how often to poll EC2")
    String poll;

    ClusterConfig config;
    Ec2Spec spec;

    void load() {
      config = Clusters.load(file);
      try {
        spec = Ec2Spec.load(file, config);
      } catch (ConfigException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
    }

    Ec2Clients clients() {
      URI uri = null;
      if (endpoint != null) {
        try {
          uri = new URI(endpoint);
        } catch (URISyntaxException e) {
          uri = null;
        }
        if (uri == null || uri.getScheme() == null || uri.getHost() == null) {
          throw new Main.CliException(Main.USAGE, "--endpoint " + endpoint + " is not a URL. Fix: write it like"
              + " http://127.0.0.1:5000");
        }
      }
      return new Ec2Clients(Ec2Clients.defaultChain(), uri);
    }

    Ec2Provisioner provisioner(Ec2Clients clients, Ec2Listener listener) {
      Duration interval = org.kvlab.api.Params.parseDuration(poll, "--poll-interval");
      return new Ec2Provisioner(clients, PriceTable.bundled(), listener,
          new Ec2Provisioner.Options(Clock.systemUTC(), interval, Duration.ofMinutes(10), stateDir));
    }
  }

  /** Prints events as they come. */
  static Ec2Listener printer(PrintStream out) {
    return new Ec2Listener() {
      @Override
      public void progress(String message) {
        out.println(message);
      }

      @Override
      public void created(Ec2Resource r) {
        out.println("created " + r);
      }

      @Override
      public void deleted(Ec2Resource r) {
        out.println("deleted " + r);
      }
    };
  }

  static <T> T run(Callable<T> body) throws Exception {
    try {
      return body.call();
    } catch (Ec2Error e) {
      throw new Main.CliException(Main.FAILED, e.getMessage());
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = "Create the cluster's key pair, security groups and instances and wait until they run."
          + " --dry-run shows what would be created and its cost, and creates nothing.")
  static final class Up implements Callable<Integer> {
    @Mixin
    Common common;

    @Option(names = "--dry-run", description = "show what would be created and its cost; create nothing")
    boolean dryRun;

    @Option(names = "--caller-cidr", description = "the address that may reach the instances (SSH, cluster ports),"
        + " e.g. 203.0.113.7/32 (default: this machine's public address, from https://checkip.amazonaws.com)")
    String callerCidr;

    @Override
    public Integer call() throws Exception {
      common.load();
      Clusters.protocol(common.config);
      if (dryRun) {
        Ec2Plan plan;
        try {
          plan = common.provisioner(null, Ec2Listener.NONE).plan(common.config, common.spec);
        } catch (Ec2Error e) {
          throw new Main.CliException(Main.USAGE, e.getMessage()); // the file asks for what AWS would refuse
        }
        System.out.println("dry run: nothing is created");
        plan.lines().forEach(System.out::println);
        return Main.OK;
      }
      CallerAddress caller = callerCidr != null ? CallerAddress.fixed(callerCidr) : CallerAddress.checkIp();
      try (Ec2Clients clients = common.clients()) {
        Ec2Provisioner p = common.provisioner(clients, printer(System.out));
        Ec2Cluster c = run(() -> p.up(common.config, common.spec, caller, AddressMapper.PUBLIC));
        System.out.printf("%-3s %-15s %-20s %-10s %-9s %-16s %-16s%n", "DC", "REGION", "INSTANCE", "TYPE", "MARKET", "HOST",
            "PRIVATE");
        for (Ec2Host h : c.hosts()) {
          Ec2Instance i = h.instance();
          System.out.printf("%-3d %-15s %-20s %-10s %-9s %-16s %-16s%n", h.datacenter(), i.region(), i.id(), i.type(),
              i.spot() ? "spot" : "on-demand", h.host(), i.privateIp());
        }
        System.out.println("ssh as " + common.spec.user() + " with " + c.keyFile() + "; the instances terminate themselves at "
            + c.expires() + "; " + cost(c.usdPerHour()));
        System.out.println("delete them with: kvlab ec2 down " + common.file);
        return Main.OK;
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Show the cluster's live instances (with --all: every kvlab cluster's) in the file's regions,"
          + " since when they run and an hourly cost estimate.")
  static final class ListCmd implements Callable<Integer> {
    @Mixin
    Common common;

    @Option(names = "--all", description = "every kvlab cluster's instances in these regions, not only this cluster's")
    boolean all;

    @Override
    public Integer call() throws Exception {
      common.load();
      try (Ec2Clients clients = common.clients()) {
        Ec2Provisioner p = common.provisioner(clients, Ec2Listener.NONE);
        List<Ec2Instance> list = run(() -> p.list(common.spec.regions(),
            all ? Optional.empty() : Optional.of(common.config.name())));
        if (list.isEmpty()) {
          System.out.println("no kvlab instances " + (all ? "" : "of cluster " + common.config.name() + " ") + "in "
              + String.join(", ", common.spec.regions()));
          return Main.OK;
        }
        Instant now = Instant.now();
        System.out.printf("%-15s %-20s %-10s %-3s %-20s %-10s %-9s %-13s %-20s %-8s %-20s %-8s%n", "REGION", "CLUSTER", "OWNER",
            "DC", "INSTANCE", "TYPE", "MARKET", "STATE", "SINCE", "UP", "EXPIRES", "USD/H");
        BigDecimal total = BigDecimal.ZERO;
        boolean priced = true;
        for (Ec2Instance i : list) {
          System.out.printf("%-15s %-20s %-10s %-3s %-20s %-10s %-9s %-13s %-20s %-8s %-20s %-8s%n", i.region(), i.cluster(),
              i.owner(), i.datacenter() < 0 ? "-" : Integer.toString(i.datacenter()), i.id(), i.type(),
              i.spot() ? "spot" : "on-demand", i.state(), i.launched() == null ? "-" : i.launched().toString(),
              i.launched() == null ? "-" : age(Duration.between(i.launched(), now)),
              i.expires() == null ? "-" : i.expires().toString(), i.usdPerHour().map(BigDecimal::toPlainString).orElse("?"));
          if (i.usdPerHour().isPresent()) {
            total = total.add(i.usdPerHour().get());
          } else {
            priced = false;
          }
        }
        PriceTable prices = PriceTable.bundled();
        System.out.println(list.size() + " instance(s); " + cost(priced ? Optional.of(total) : Optional.empty())
            + " (on-demand prices of " + prices.date() + ", " + prices.source() + "; spot costs at most this)");
        return Main.OK;
      }
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Delete exactly what carries the cluster's tags (cluster name and owner) in every region of the"
          + " file: instances, then security groups, then key pairs. --dry-run shows what would be deleted.")
  static final class Down implements Callable<Integer> {
    @Mixin
    Common common;

    @Option(names = "--dry-run", description = "show what would be deleted; delete nothing")
    boolean dryRun;

    @Override
    public Integer call() throws Exception {
      common.load();
      try (Ec2Clients clients = common.clients()) {
        Ec2Provisioner p = common.provisioner(clients, printer(System.out));
        String cluster = common.config.name();
        String owner = common.spec.owner();
        if (dryRun) {
          List<String> tagged = run(() -> p.tagged(cluster, owner, common.spec.regions()));
          System.out.println("dry run: nothing is deleted");
          if (tagged.isEmpty()) {
            System.out.println("nothing carries the tags of cluster " + cluster + " (owner " + owner + ")");
          }
          tagged.forEach(t -> System.out.println("would delete " + t));
          return Main.OK;
        }
        List<Ec2Resource> deleted = run(() -> p.down(cluster, owner, common.spec.regions()));
        System.out.println(deleted.isEmpty() ? "nothing carried the tags of cluster " + cluster + " (owner " + owner + ")"
            : "cluster " + cluster + ": deleted " + deleted.size() + " resource(s)");
        return Main.OK;
      }
    }
  }

  static String cost(Optional<BigDecimal> usdPerHour) {
    return usdPerHour.map(h -> "about USD " + h.setScale(4, RoundingMode.HALF_UP).toPlainString() + " per hour")
        .orElse("cost unknown (an instance type or region is not in the price table)");
  }

  static String age(Duration d) {
    long m = Math.max(0, d.toMinutes());
    return m < 60 ? m + "m" : (m / 60) + "h" + (m % 60) + "m";
  }
}
