package org.kvlab.check.txn;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.kvlab.api.TxnProcedures;
import org.kvlab.api.TxnRequest;
import org.kvlab.check.Checker;
import org.kvlab.check.Result;
import org.kvlab.check.Violation;
import org.kvlab.history.History;
import org.kvlab.history.Operation;

/**
 * The bank invariant (the seeds' Bank, 001 §A.3): accounts start at 0 (absent), {@code transfer(amount, from, to)}
 * procedures move money between them, so every transaction that read all accounts at one point must see them sum to
 * 0. A read-all is an OK read-only transaction (no writes, no procedure) whose keys include every key a transfer of
 * the history names; a balance that is not a whole number is a violation too. Transfers' own reads are not judged
 * (the {@code serializable} checker cannot judge them either: their values are not unique).
 */
public final class BankChecker implements Checker {
  public static final String NAME = "bank";
  public static final String TOTAL = "bank: total changed";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Result check(History history) {
    Set<String> accounts = new TreeSet<>();
    int transfers = 0;
    for (Operation op : history.operations()) {
      if (op.type() == Operation.Type.TXN && op.txn() != null
          && TxnProcedures.TRANSFER.equals(op.txn().request().procedure())) {
        accounts.addAll(op.txn().request().reads());
        transfers++;
      }
    }
    if (transfers == 0) {
      return Result.ok(NAME).vacuous("no transfer in the history: nothing to check. Fix: run the bank workload"
          + " (TxnWorkload bank)");
    }
    List<Violation> out = new ArrayList<>();
    int readAlls = 0;
    int found = 0;
    for (Operation op : history.operations()) {
      TxnRequest q = op.type() == Operation.Type.TXN && op.ok() && op.txn() != null ? op.txn().request() : null;
      if (q == null || q.procedure() != null || !q.writes().isEmpty() || !q.reads().containsAll(accounts)) {
        continue;
      }
      readAlls++;
      long total = 0;
      String bad = null;
      for (String k : accounts) {
        Optional<ByteString> v = op.reads().get(k);
        try {
          total += v == null || v.isEmpty() ? 0 : Long.parseLong(v.get().toStringUtf8().trim());
        } catch (NumberFormatException e) {
          bad = k + "=\"" + v.get().toStringUtf8() + "\"";
        }
      }
      if ((total != 0 || bad != null) && found++ < SerializabilityChecker.SHOWN_PER_KIND) {
        out.add(new Violation(TOTAL, op.describe() + (bad != null ? " read a balance that is no whole number, " + bad
            : " read balances summing to " + total) + ", but transfers only move money between the "
            + accounts.size() + " accounts, which start at 0: the read saw part of a transfer, or a transfer was"
            + " applied twice or partly", List.of(op.id())));
      }
    }
    Result r = Result.of(NAME, out).withNote("checked " + readAlls + " reads of all " + accounts.size()
        + " accounts, against " + transfers + " transfers" + (found > out.size() ? "; " + found + " violations in all"
        : ""));
    return readAlls == 0 ? r.vacuous("no transaction read all " + accounts.size() + " accounts. Fix: give the bank"
        + " workload a read share above 0") : r;
  }
}
