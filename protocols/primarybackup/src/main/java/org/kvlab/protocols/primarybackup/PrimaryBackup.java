package org.kvlab.protocols.primarybackup;

import java.util.Map;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.RecordType;
import org.kvlab.api.VersionKey;

/** The primary-backup plug-in: a fixed primary per partition, synchronous copies to the backups, linearizable. */
public final class PrimaryBackup extends BaseProtocol {

  static final MessageTypes MESSAGES = MessageTypes.of(GetReq.class, GetReply.class, PutReq.class, PutReply.class,
      Backup.class, BackupAck.class);
  /** Versions are named by the primary: (incarnation, seq), larger is newer. */
  static final RecordType<Record> RECORD =
      RecordType.of(Record.class, r -> VersionKey.of(r.getIncarnation(), r.getSeq()));

  public PrimaryBackup() {
    super("primarybackup",
        "primary-backup: the partition's server in datacenter 0 orders writes and answers reads, every backup"
            + " acknowledges a write before it is answered (linearizable, example of the protocol kit)",
        MESSAGES, RECORD, PrimaryBackupServer::new, PrimaryBackupClient::new);
  }

  /** Primary-backup reads no parameters: a cluster file that sets any is refused. */
  @Override
  public Map<String, String> parameters() {
    return Map.of();
  }
}
