package org.kvlab.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The operations of one run, in invocation order. Written by the simulator and (behind a flag) by the
 * real runtime's client; read by checkers. See {@link HistoryFiles} for the JSON-lines file format.
 */
public final class History {
  private final List<Operation> operations;

  public History(List<Operation> operations) {
    this.operations = List.copyOf(operations);
  }

  public List<Operation> operations() {
    return operations;
  }

  public int size() {
    return operations.size();
  }

  /** How many operations ended OK, INFO (outcome unknown) and FAIL. */
  public record Outcomes(long ok, long info, long fail) {
    /** "26741 OK, 12 INFO, 3 FAIL". */
    @Override
    public String toString() {
      return ok + " OK, " + info + " INFO, " + fail + " FAIL";
    }
  }

  /** The operations by outcome: a run where none ended OK checked nothing, whatever the checkers say. */
  public Outcomes outcomes() {
    long ok = 0;
    long info = 0;
    long fail = 0;
    for (Operation op : operations) {
      switch (op.outcome()) {
        case OK -> ok++;
        case INFO -> info++;
        case FAIL -> fail++;
      }
    }
    return new Outcomes(ok, info, fail);
  }

  /**
   * The one rule by which the simulator, the real client ({@code Session}) and history files turn the
   * way an operation ended into its outcome: no error is {@code OK}; an
   * {@link org.kvlab.api.OperationException} is {@code INFO} if its outcome is unknown
   * ({@link org.kvlab.api.OperationException#outcomeUnknown()}) and {@code FAIL} otherwise; any other
   * exception (the client gave up and cancelled, a protocol client threw) is {@code INFO}, since nothing
   * says the operation did not take effect. The message's words are never looked at.
   */
  public static Operation.Outcome outcomeOf(Throwable error) {
    if (error == null) {
      return Operation.Outcome.OK;
    }
    Throwable t = cause(error);
    if (t instanceof org.kvlab.api.OperationException op) {
      return op.outcomeUnknown() ? Operation.Outcome.INFO : Operation.Outcome.FAIL;
    }
    return Operation.Outcome.INFO;
  }

  /** The exception inside the wrappers futures add ({@code CompletionException}, {@code ExecutionException}). */
  public static Throwable cause(Throwable error) {
    Throwable t = error;
    while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The error text a history records for {@code error}: its message, or its class if it has none. */
  public static String errorText(Throwable error) {
    Throwable t = cause(error);
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  public Operation get(long id) {
    for (Operation op : operations) {
      if (op.id() == id) {
        return op;
      }
    }
    throw new IllegalArgumentException("no operation #" + id);
  }

  /** A thread-safe builder that assigns ids in invocation order. */
  /**
   * {@code ops} sorted by id, as {@code ops.sort(comparingLong(Operation::id))}: when the ids are distinct and dense
   * (a recorder's: 0, 1, 2, ... in invocation order, recorded in completion order) each goes straight to its place,
   * otherwise the list is sorted (stable).
   */
  static List<Operation> byId(List<Operation> ops) {
    int n = ops.size();
    if (n > 0) {
      long min = Long.MAX_VALUE;
      for (Operation op : ops) {
        min = Math.min(min, op.id());
      }
      Operation[] placed = new Operation[n];
      boolean dense = true;
      for (int i = 0; i < n && dense; i++) {
        Operation op = ops.get(i);
        long at = op.id() - min; // min is the smallest id: at >= 0 (no overflow for ids of one history in practice)
        dense = at >= 0 && at < n && placed[(int) at] == null;
        if (dense) {
          placed[(int) at] = op;
        }
      }
      if (dense) {
        return java.util.Arrays.asList(placed);
      }
    }
    List<Operation> sorted = new ArrayList<>(ops);
    sorted.sort(java.util.Comparator.comparingLong(Operation::id));
    return sorted;
  }

  public static final class Recorder {
    private final List<Operation> ops = Collections.synchronizedList(new ArrayList<>());
    private long nextId;

    public synchronized long nextId() {
      return nextId++;
    }

    public void add(Operation op) {
      ops.add(op);
    }

    public History build() {
      List<Operation> copy;
      synchronized (ops) {
        copy = new ArrayList<>(ops);
      }
      return new History(byId(copy));
    }
  }
}
