package org.kvlab.cli;

import com.google.protobuf.ByteString;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.kvlab.api.OperationException;
import org.kvlab.api.Session;
import org.kvlab.api.TxnRequest;
import org.kvlab.api.TxnResult;
import org.kvlab.config.ClusterConfig;
import org.kvlab.config.UserText;
import org.kvlab.runtime.ClientRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** An interactive (or scripted, from standard input) get/put/rotx console, with one session per datacenter used. */
@Command(name = "shell", mixinStandardHelpOptions = true,
    description = "Read and write keys against a running cluster. Commands: get <key>, put <key> <value>, "
        + "get@<level> <key>, put@<level> <key> <value> (per-operation session guarantees, e.g. nukv), rotx <key>..., txn r <key>... w <key>=<value>... (or txn add <delta> <key>..., txn append <element> <key>... [r <key>...], txn transfer <amount> <from> <to>),"
        + " dc <n> (switch to this shell's session in datacenter n), move <n> (move the current session to datacenter"
        + " n: the same session, so its guarantees go with it), sleep <duration>, help, quit. "
        + "Reads standard input, so it can be scripted; exit code 1 if any operation failed.")
final class ShellCommand implements Callable<Integer> {
  @Parameters(index = "0", description = "the cluster file")
  Path file;

  @Option(names = "--dc", defaultValue = "0", description = "datacenter to talk to first (default: ${DEFAULT-VALUE})")
  int dc;

  @Option(names = "--history", description = "record every operation into this file (JSON lines) for ./kvlab check")
  Path history;

  @Override
  public Integer call() throws Exception {
    ClusterConfig config = Clusters.load(file);
    boolean interactive = System.console() != null;
    boolean failed = false;
    org.kvlab.history.History.Recorder recorder = history == null ? null : new org.kvlab.history.History.Recorder();
    try (ClientRuntime clients = new ClientRuntime(config, Clusters.protocol(config), 1)) {
      clients.recordHistory(recorder);
      Map<Integer, Session> sessions = new java.util.HashMap<>(); // one session per datacenter, opened on first use
      try {
        sessions.put(dc, clients.openSession(dc));
      } catch (IllegalArgumentException e) {
        throw new Main.CliException(Main.USAGE, e.getMessage());
      }
      if (interactive) {
        System.out.println("kvlab shell: cluster " + config.name() + " (" + config.protocol() + "), datacenter " + dc
            + ". Type help for commands.");
      }
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (true) {
        if (interactive) {
          System.out.print("dc" + dc + "> ");
          System.out.flush();
        }
        String line = in.readLine();
        if (line == null) {
          break;
        }
        List<String> words = Arrays.stream(line.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
        if (words.isEmpty() || words.get(0).startsWith("#")) {
          continue;
        }
        String cmd = words.get(0).toLowerCase(java.util.Locale.ROOT);
        if (cmd.equals("quit") || cmd.equals("exit")) {
          break;
        }
        try {
          if (cmd.equals("dc")) {
            failed |= !switchDc(clients, sessions, words);
          } else if (cmd.equals("move")) {
            failed |= !move(clients, sessions, words);
          } else {
            failed |= !execute(sessions.get(dc), cmd, words, line);
          }
        } catch (OperationException e) {
          System.out.println("error: " + e.getMessage());
          failed = true;
        }
      }
    }
    if (recorder != null) {
      org.kvlab.history.HistoryFiles.write(recorder.build(), history);
    }
    return failed ? Main.FAILED : Main.OK;
  }

  /** {@code dc <n>}: later commands go to this shell's session in datacenter n (a new session on first use). */
  private boolean switchDc(ClientRuntime clients, Map<Integer, Session> sessions, List<String> words) {
    int n;
    try {
      n = Integer.parseInt(words.size() == 2 ? words.get(1) : "");
      sessions.computeIfAbsent(n, clients::openSession);
    } catch (IllegalArgumentException e) {
      System.out.println("usage: dc <n>, n from 0 to " + (clients.config().topology().datacenters() - 1));
      return false;
    }
    dc = n;
    System.out.println("datacenter " + dc);
    return true;
  }

  /**
   * {@code move <n>}: the current session moves to datacenter n ({@link Session#moveTo}) and stays the current one;
   * unlike {@code dc <n>} it is the same session, so what it read and wrote still binds it there (e.g. NuKV's hrm/hwm:
   * a get@mr+ryw after the move sees the session's own writes). A session this shell had opened in n is closed.
   */
  private boolean move(ClientRuntime clients, Map<Integer, Session> sessions, List<String> words) {
    int datacenters = clients.config().topology().datacenters();
    int n;
    try {
      n = Integer.parseInt(words.size() == 2 ? words.get(1) : "");
    } catch (NumberFormatException e) {
      System.out.println("usage: move <n>, n from 0 to " + (datacenters - 1));
      return false;
    }
    Session session = sessions.get(dc);
    try {
      session.moveTo(n);
    } catch (OperationException e) {
      System.out.println("error: " + e.getMessage() + " (usage: move <n>, n from 0 to " + (datacenters - 1) + ")");
      return false;
    }
    if (n != dc) {
      sessions.remove(dc);
      Session there = sessions.put(n, session);
      if (there != null) {
        there.close();
      }
    }
    dc = n;
    System.out.println("session moved to datacenter " + dc);
    return true;
  }

  private static boolean execute(Session session, String cmd, List<String> words, String line) {
    long start = System.nanoTime();
    int at = cmd.indexOf('@');
    if (at > 0 && (cmd.startsWith("get@") || cmd.startsWith("put@"))) {
      return leveled(session, cmd.substring(0, at), cmd.substring(at + 1), words, line, start);
    }
    switch (cmd) {
      case "get" -> {
        if (words.size() != 2) {
          System.out.println("usage: get <key>");
          return false;
        }
        Optional<ByteString> v = session.get(words.get(1));
        System.out.printf("%s = %s   (%.2f ms)%n", words.get(1), v.map(ShellCommand::show).orElse("(not found)"), ms(start));
      }
      case "put" -> {
        if (words.size() < 3) {
          System.out.println("usage: put <key> <value>");
          return false;
        }
        String value = line.trim().substring(line.trim().indexOf(words.get(1)) + words.get(1).length()).trim();
        session.put(words.get(1), ByteString.copyFromUtf8(value));
        System.out.printf("ok   (%.2f ms)%n", ms(start));
      }
      case "rotx" -> {
        if (words.size() < 2) {
          System.out.println("usage: rotx <key> [<key>...]");
          return false;
        }
        Map<String, Optional<ByteString>> values = session.readOnlyTx(words.subList(1, words.size()));
        values.forEach((k, v) -> System.out.printf("%s = %s%n", k, v.map(ShellCommand::show).orElse("(not found)")));
        System.out.printf("(%.2f ms)%n", ms(start));
      }
      case "txn" -> {
        TxnRequest req;
        try {
          req = parseTxn(words.subList(1, words.size()));
        } catch (IllegalArgumentException e) {
          System.out.println("error: " + e.getMessage());
          System.out.println("usage: " + TXN_USAGE);
          return false;
        }
        TxnResult r = session.transact(req);
        r.reads().forEach((k, v) -> System.out.printf("%s = %s%n", k, v.map(ShellCommand::show).orElse("(not found)")));
        r.writes().forEach((k, v) -> System.out.printf("%s := %s%n", k, show(v)));
        System.out.printf("ok ts %d, %d partition(s)   (%.2f ms)%n", r.ts(), r.parts().size(), ms(start));
      }
      case "sleep" -> {
        Duration d;
        try {
          d = org.kvlab.api.Params.parseDuration(words.size() == 2 ? words.get(1) : "", "sleep");
        } catch (IllegalArgumentException e) {
          System.out.println("usage: sleep <duration>, e.g. sleep 500ms");
          return false;
        }
        try {
          Thread.sleep(Math.max(0, d.toMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      case "help" -> System.out.println("get <key> | put <key> <value> | get@<level> <key> | put@<level> <key> <value>"
          + " | rotx <key>... | " + TXN_USAGE + " | dc <n> | move <n> | sleep <duration> | quit   (levels: get@mr, get@ryw, get@mr+ryw, get@eventual;"
          + " put@mw, put@wfr, put@mw+wfr, put@eventual; protocols with per-operation levels, e.g. nukv)");
      default -> {
        System.out.println("unknown command '" + cmd + "'; type help");
        return false;
      }
    }
    return true;
  }

  /** {@code get@<level> <key>} and {@code put@<level> <key> <value>}: per-operation session guarantees. */
  private static boolean leveled(Session session, String op, String level, List<String> words, String line, long start) {
    try {
      if (op.equals("get")) {
        if (words.size() != 2) {
          System.out.println("usage: get@<level> <key>, level eventual, mr, ryw or mr+ryw");
          return false;
        }
        Optional<ByteString> v = session.get(words.get(1), org.kvlab.api.SessionGuarantees.ReadLevel.parse(level));
        System.out.printf("%s = %s   (%.2f ms)%n", words.get(1), v.map(ShellCommand::show).orElse("(not found)"), ms(start));
      } else {
        if (words.size() < 3) {
          System.out.println("usage: put@<level> <key> <value>, level eventual, mw, wfr or mw+wfr");
          return false;
        }
        String value = line.trim().substring(line.trim().indexOf(words.get(1), words.get(0).length())
            + words.get(1).length()).trim();
        session.put(words.get(1), ByteString.copyFromUtf8(value), org.kvlab.api.SessionGuarantees.WriteLevel.parse(level));
        System.out.printf("ok   (%.2f ms)%n", ms(start));
      }
      return true;
    } catch (IllegalArgumentException e) {
      System.out.println(e.getMessage());
      return false;
    }
  }

  static final String TXN_USAGE = "txn [r <key>...] [w <key>=<value>...] | txn add <delta> <key>... | txn append"
      + " <element> <key>... [r <key>...] | txn transfer <amount> <from> <to>";

  /**
   * The words after {@code txn}: {@code r k1 k2 w k3=v3 k4=v4} (a read set and a write set, either may be absent) or
   * {@code add <delta> k1 k2} (the deterministic {@code add} procedure over the keys).
   */
  static TxnRequest parseTxn(List<String> words) {
    if (words.isEmpty()) {
      throw new IllegalArgumentException("txn needs keys");
    }
    if (words.get(0).equals(org.kvlab.api.TxnProcedures.APPEND) && words.size() >= 3) {
      // append <element> <key>... [r <key>...]: the list-append workload's transaction (docs/checkers.md)
      int r = words.indexOf("r");
      List<String> appended = words.subList(2, r < 0 ? words.size() : r);
      java.util.Set<String> keys = new java.util.TreeSet<>(appended);
      keys.addAll(r < 0 ? List.of() : words.subList(r + 1, words.size()));
      List<String> args = new java.util.ArrayList<>(List.of(words.get(1)));
      args.addAll(appended);
      return new TxnRequest(List.copyOf(keys), Map.of(), words.get(0), args);
    }
    if (words.get(0).equals(org.kvlab.api.TxnProcedures.TRANSFER) && words.size() == 4) {
      return TxnRequest.procedure(words.get(0), words.subList(2, 4), words.get(1), words.get(2), words.get(3));
    }
    if (org.kvlab.api.TxnProcedures.NAMES.contains(words.get(0))) {
      if (words.size() < 3) {
        throw new IllegalArgumentException("procedure " + UserText.cut(words.get(0)) + " needs an argument and at least one key");
      }
      return TxnRequest.procedure(words.get(0), words.subList(2, words.size()), words.get(1));
    }
    List<String> reads = new java.util.ArrayList<>();
    Map<String, ByteString> writes = new java.util.TreeMap<>();
    String section = null;
    for (String w : words) {
      if (w.equals("r") || w.equals("w")) {
        section = w;
      } else if ("r".equals(section)) {
        reads.add(w);
      } else if ("w".equals(section)) {
        int eq = w.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("a write is <key>=<value>, got " + UserText.quoted(w));
        }
        writes.put(w.substring(0, eq), ByteString.copyFromUtf8(w.substring(eq + 1)));
      } else {
        throw new IllegalArgumentException(UserText.quoted(w) + " is not in a read (r) or write (w) list");
      }
    }
    return TxnRequest.of(reads, writes);
  }

  static String show(ByteString v) {
    return v.isValidUtf8() ? "\"" + v.toStringUtf8() + "\"" : v.size() + " bytes";
  }

  private static double ms(long start) {
    return (System.nanoTime() - start) / 1e6;
  }
}
