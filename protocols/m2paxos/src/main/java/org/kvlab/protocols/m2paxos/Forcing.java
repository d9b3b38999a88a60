package org.kvlab.protocols.m2paxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.kvlab.api.Invariants;

/**
 * The Acquisition phase's SELECT (Alg. 6) and the accept it leads to, as a pure function of the promises a quorum
 * gave. For every prepared instance (l, in) it forces the command with the highest Rdec among the replies
 * ({@code toForce}); a decided one counts as the highest. Three rules the pseudo-code leaves open:
 *
 * <ol>
 *   <li><b>A forced command keeps all its positions.</b> A command over several objects is accepted only jointly, at
 *       the positions its first owner gave it on every object, in one ACCEPT (an acceptor takes all of an ACCEPT or
 *       none). If a quorum chose it at (l, in), the same quorum accepted it at its position on every other object, so
 *       it is the highest-epoch value there too. So the acquisition covers every object of every forced command
 *       ({@link Plan#missing}: the caller prepares those too and selects again), and forces the command at all its
 *       positions. If at one of them a different command is the highest (or decided), the command was chosen
 *       nowhere, and its instances get a no-op instead (its proposer retries it; a delivered id is skipped the
 *       second time). This keeps every object's order of commands the order their owners gave them, so delivery
 *       (next on every object) never waits in a cycle.
 *   <li><b>Gaps become no-ops.</b> An instance between the first prepared one and the highest one anybody reported,
 *       with nothing accepted in the quorum, was chosen nowhere: a no-op fills it so later instances can be
 *       delivered.
 *   <li><b>The proposed command goes after the forced ones in the same accept</b> (one more instance on each of its
 *       objects), unless it was itself forced at its old positions. The paper ends the acquisition and proposes it
 *       again, which then takes the owner path at the same instances; one round trip less.
 * </ol>
 */
final class Forcing {
  private Forcing() {}

  /**
   * @param missing objects of forced commands that were not prepared: prepare them and select again (entries empty)
   * @param entries the accept: (object, instance, command) for every prepared instance up to the highest one
   * @param forcedOwn whether the proposed command was among the forced ones
   */
  record Plan(Set<String> missing, List<Entry> entries, boolean forcedOwn) {}

  static Command noop(String key, long in) {
    return Command.newBuilder().putPositions(key, in).build();
  }

  static boolean same(Command a, Command b) {
    return a.getId() == b.getId() && a.getPositionsMap().equals(b.getPositionsMap());
  }

  /**
   * @param from per prepared object, its first prepared instance (LastDecided + 1 at the acquirer)
   * @param held what the quorum (the acquirer included) holds at the prepared instances
   * @param decidedHere the command this node knows decided at (object, instance) below {@code from}, or null (also
   *     when truncated: every replica delivered it)
   * @param own the command the acquisition is for, or null (recovery of stuck instances)
   */
  static Plan select(Map<String, Long> from, List<Held> held, BiFunction<String, Long, Command> decidedHere,
      Command own) {
    TreeMap<String, TreeMap<Long, Held>> best = new TreeMap<>();
    for (Held h : held) {
      TreeMap<Long, Held> perObject = best.computeIfAbsent(h.getKey(), k -> new TreeMap<>());
      Held b = perObject.get(h.getInstance());
      if (b == null || rank(h) > rank(b)) {
        perObject.put(h.getInstance(), h);
      }
    }
    Set<String> missing = new TreeSet<>();
    best.values().forEach(m -> m.values().forEach(h -> h.getCmd().getPositionsMap().keySet().stream()
        .filter(k -> !from.containsKey(k)).forEach(missing::add)));
    if (!missing.isEmpty()) {
      return new Plan(missing, List.of(), false);
    }
    TreeMap<String, TreeMap<Long, Command>> chosen = new TreeMap<>();
    from.keySet().forEach(k -> chosen.put(k, new TreeMap<>()));
    // the forced candidates, highest rank first (decided ones first: they are at all their positions)
    TreeMap<String, Command> candidates = new TreeMap<>(); // by signature: a retried command has two copies
    Map<String, Long> rankOf = new TreeMap<>();
    best.values().forEach(m -> m.values().forEach(h -> {
      String sig = signature(h.getCmd());
      if (h.getCmd().getId() != 0 && rank(h) >= rankOf.getOrDefault(sig, Long.MIN_VALUE)) {
        rankOf.put(sig, rank(h));
        candidates.put(sig, h.getCmd());
      }
    }));
    List<Command> order = new ArrayList<>(candidates.values());
    order.sort((a, b) -> Long.compare(rankOf.get(signature(b)), rankOf.get(signature(a))));
    boolean forcedOwn = false;
    for (Command f : order) {
      boolean free = consistent(f, from, best, decidedHere) && f.getPositionsMap().entrySet().stream()
          .allMatch(p -> p.getValue() < from.get(p.getKey()) || !chosen.get(p.getKey()).containsKey(p.getValue()));
      if (!free && rankOf.get(signature(f)) == Long.MAX_VALUE) {
        StringBuilder why = new StringBuilder();
        f.getPositionsMap().forEach((m, pm) -> {
          Held b = best.getOrDefault(m, new TreeMap<>()).get(pm);
          Command d = pm < from.get(m) ? decidedHere.apply(m, pm) : null;
          why.append(" ").append(m).append("@").append(pm).append(": from ").append(from.get(m)).append(", best ")
              .append(b == null ? "-" : signature(b.getCmd()) + (b.getDecided() ? " decided" : " rdec " + b.getRdec()))
              .append(", here ").append(d == null ? "-" : signature(d)).append(", claimed ")
              .append(chosen.get(m).containsKey(pm) ? signature(chosen.get(m).get(pm)) : "-").append(";");
        });
        Invariants.check(false, "command %s is decided but not at all its positions:%s", signature(f), why);
      }
      if (free) {
        f.getPositionsMap().forEach((m, pm) -> {
          if (pm >= from.get(m)) {
            chosen.get(m).put(pm, f);
          }
        });
        forcedOwn |= own != null && f.getId() == own.getId();
      }
    }
    // what is left of the reported instances: no-ops (reported no-ops, commands chosen nowhere)
    best.forEach((k, m) -> m.keySet().forEach(in -> chosen.get(k).putIfAbsent(in, noop(k, in))));
    Map<String, Long> next = new TreeMap<>();
    List<Entry> entries = new ArrayList<>();
    for (Map.Entry<String, TreeMap<Long, Command>> o : chosen.entrySet()) {
      String k = o.getKey();
      long max = o.getValue().isEmpty() ? from.get(k) - 1 : Math.max(from.get(k) - 1, o.getValue().lastKey());
      for (long in = from.get(k); in <= max; in++) {
        Command c = o.getValue().get(in);
        entries.add(Entry.newBuilder().setKey(k).setInstance(in).setCmd(c != null ? c : noop(k, in)).build());
      }
      next.put(k, max + 1);
    }
    if (own != null && !forcedOwn) {
      Command.Builder placed = own.toBuilder().clearPositions();
      for (String k : M2PaxosServer.objectsOf(own.getOp())) {
        placed.putPositions(k, next.get(k));
      }
      Command c = placed.build();
      c.getPositionsMap().forEach((k, in) -> entries.add(Entry.newBuilder().setKey(k).setInstance(in).setCmd(c)
          .build()));
    }
    return new Plan(Set.of(), entries, forcedOwn);
  }

  /** A command's identity with its positions (two copies of a retried command differ). */
  static String signature(Command c) {
    return c.getId() + "" + new TreeMap<>(c.getPositionsMap());
  }

  /** A decided value outranks every accepted one; among accepted ones the higher Rdec. */
  private static long rank(Held h) {
    return h.getDecided() ? Long.MAX_VALUE : h.getRdec();
  }

  /** Whether {@code f} is the value to force at every one of its positions (rule 1). */
  private static boolean consistent(Command f, Map<String, Long> from, Map<String, TreeMap<Long, Held>> best,
      BiFunction<String, Long, Command> decidedHere) {
    for (Map.Entry<String, Long> p : f.getPositionsMap().entrySet()) {
      if (p.getValue() < from.get(p.getKey())) {
        Command d = decidedHere.apply(p.getKey(), p.getValue());
        if (d == null || !same(d, f)) {
          return false;
        }
      } else {
        Held b = best.getOrDefault(p.getKey(), new TreeMap<>()).get(p.getValue());
        if (b != null && !same(b.getCmd(), f)) {
          return false;
        }
      }
    }
    return true;
  }
}
