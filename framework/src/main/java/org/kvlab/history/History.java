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

  public Operation get(long id) {
    for (Operation op : operations) {
      if (op.id() == id) {
        return op;
      }
    }
    throw new IllegalArgumentException("no operation #" + id);
  }

  /** A thread-safe builder that assigns ids in invocation order. */
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
      copy.sort(java.util.Comparator.comparingLong(Operation::id));
      return new History(copy);
    }
  }
}
