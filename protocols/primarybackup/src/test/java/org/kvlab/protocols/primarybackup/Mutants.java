package org.kvlab.protocols.primarybackup;

import com.google.protobuf.Message;
import java.util.List;
import org.kvlab.api.Client;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.Protocol;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * Deliberately broken variants of primary-backup, each differing from {@link PrimaryBackupServer} in one rule,
 * to show what the checkers catch and what they cannot see.
 */
final class Mutants {
  private Mutants() {}

  /**
   * Bug: a backup answers a GET from its own store instead of forwarding it. Its copy trails the primary's: a
   * write the primary already shows (before its backups acknowledged it) is missing there, and so is every write
   * made while a partition holds the copies back. Expected catch: linearizable.
   */
  static Protocol backupReads() {
    return new Mutant("primarybackup-backup-reads", true, false);
  }

  /**
   * Bug: the primary answers a PUT as soon as it stored it, before any backup acknowledged it (it still sends the
   * copies). Nothing a client of this protocol sees changes while backups are never read and never take over: no
   * checker can catch it. {@link #earlyAckBackupReads()} shows what makes it visible.
   */
  static Protocol earlyAck() {
    return new Mutant("primarybackup-early-ack", false, true);
  }

  /**
   * Both bugs: the early acknowledgement becomes visible once backups answer reads. A session that wrote at the
   * primary and then reads at a backup may miss its own write (read-your-writes), which {@link #backupReads()}
   * alone never does: there a write is answered only once every backup holds it.
   */
  static Protocol earlyAckBackupReads() {
    return new Mutant("primarybackup-early-ack-backup-reads", true, true);
  }

  /** The primary-backup plug-in with the bugs switched on. */
  private record Mutant(String name, boolean backupReads, boolean earlyAck) implements Protocol {
    @Override
    public String summary() {
      return "broken on purpose";
    }

    @Override
    public MessageTypes messages() {
      return PrimaryBackup.MESSAGES;
    }

    @Override
    public RecordType<? extends Message> record() {
      return PrimaryBackup.RECORD;
    }

    @Override
    public Server<? extends Message> newServer() {
      return new MutantServer(backupReads, earlyAck);
    }

    @Override
    public Client newClient() {
      return new PrimaryBackupClient();
    }
  }

  private static final class MutantServer extends PrimaryBackupServer {
    private final boolean backupReads;
    private final boolean earlyAck;

    MutantServer(boolean backupReads, boolean earlyAck) {
      this.backupReads = backupReads;
      this.earlyAck = earlyAck;
    }

    @Override
    void onGet(Request<GetReq> req) {
      if (!backupReads) {
        super.onGet(req);
        return;
      }
      req.reply(store().newest(req.body().getKey()) // BUG: a backup answers from its own copy
          .map(r -> GetReply.newBuilder().setFound(true).setValue(r.getValue()).build())
          .orElse(GetReply.getDefaultInstance()));
    }

    @Override
    int acksNeeded(List<NodeId> backups) {
      return earlyAck ? 0 : super.acksNeeded(backups); // BUG: answer before any backup acknowledged
    }
  }
}
