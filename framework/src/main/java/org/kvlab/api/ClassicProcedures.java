package org.kvlab.api;

import com.google.protobuf.ByteString;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The three key-local procedures of kvlab's checked workloads: {@code add} (counters), {@code append} (list-append,
 * the black-box checker's model) and {@code transfer} (the bank). See {@link TxnProcedures} for their forms.
 */
final class ClassicProcedures {
  private ClassicProcedures() {}

  static List<TxnProcedure> all() {
    return List.of(new Add(), new Append(), new Transfer());
  }

  /** {@code add(delta)}: every key's integer plus delta. */
  private static final class Add implements TxnProcedure {
    @Override
    public String name() {
      return "add";
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      if (args.size() != 1) {
        throw new IllegalArgumentException("procedure add takes one argument, the delta (a whole number), got "
            + args);
      }
      TxnProcedures.wholeNumber("add", "the delta", args.get(0), "add(delta)");
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      long delta = Long.parseLong(args.get(0));
      Map<String, ByteString> out = new TreeMap<>();
      read.forEach((k, v) -> out.put(k, TxnProcedures.text(TxnProcedures.number(v) + delta)));
      return out;
    }
  }

  /** {@code append(e, k...)}: e appended to the list at every named key. */
  private static final class Append implements TxnProcedure {
    @Override
    public String name() {
      return TxnProcedures.APPEND;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      listed(TxnProcedures.APPEND, keys, args,
          "append(e, k1, k2, ...): a whole number e, then the keys to append it to", args.size() >= 2);
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      String e = args.get(0);
      Map<String, ByteString> out = new TreeMap<>();
      for (String k : TxnProcedures.appendKeys(args)) {
        Optional<ByteString> v = read.get(k);
        if (v != null) {
          out.put(k, v.isEmpty() || v.get().isEmpty() ? ByteString.copyFromUtf8(e)
              : v.get().concat(ByteString.copyFromUtf8(" " + e)));
        }
      }
      return out;
    }
  }

  /** {@code transfer(amount, from, to)}: the bank's move of an amount. */
  private static final class Transfer implements TxnProcedure {
    @Override
    public String name() {
      return TxnProcedures.TRANSFER;
    }

    @Override
    public boolean keyLocal() {
      return true;
    }

    @Override
    public void validate(List<String> keys, List<String> args) {
      listed(TxnProcedures.TRANSFER, keys, args,
          "transfer(amount, from, to): a whole number, then two distinct keys", args.size() == 3);
    }

    @Override
    public Map<String, ByteString> run(List<String> args, Map<String, Optional<ByteString>> read) {
      long amount = Long.parseLong(args.get(0));
      Map<String, ByteString> out = new TreeMap<>();
      Optional<ByteString> from = read.get(args.get(1));
      Optional<ByteString> to = read.get(args.get(2));
      if (from != null) {
        out.put(args.get(1), TxnProcedures.text(TxnProcedures.number(from) - amount));
      }
      if (to != null) {
        out.put(args.get(2), TxnProcedures.text(TxnProcedures.number(to) + amount));
      }
      return out;
    }
  }

  /** A whole number, then keys the procedure declares, distinct. */
  private static void listed(String name, List<String> keys, List<String> args, String form, boolean sizeOk) {
    if (!sizeOk) {
      throw new IllegalArgumentException("procedure " + name + " takes " + form + ", got " + args);
    }
    TxnProcedures.wholeNumber(name, "the first argument", args.get(0), form);
    List<String> named = args.subList(1, args.size());
    if (!keys.containsAll(named) || new HashSet<>(named).size() != named.size()) {
      throw new IllegalArgumentException("procedure " + name + ": the keys " + named + " must be distinct and among"
          + " the transaction's keys " + keys + ". Fix: " + form);
    }
  }
}
