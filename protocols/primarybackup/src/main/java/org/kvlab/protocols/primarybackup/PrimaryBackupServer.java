package org.kvlab.protocols.primarybackup;

import java.time.Duration;
import java.util.List;
import org.kvlab.api.Handlers;
import org.kvlab.api.NodeId;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * Primary-backup, server side, written with the protocol kit (docs/tutorial.md). Interpretations:
 * the primary of a partition is its server in datacenter 0, fixed (no failover: a crashed primary restarts from
 * its store, so under durability sync it loses nothing it answered); the backups are all the partition's other
 * servers; any other server forwards a client's GET or PUT to the primary, so every read is the primary's
 * (linearizable); a write is visible at the primary at once and answered once every backup acknowledged it (no
 * quorum: backups are never read, the copies are for a failover this protocol leaves out), or unknown after
 * {@link #BACKUP_TIMEOUT}; versions are (incarnation, seq) of the primary, new after each of its restarts.
 */
class PrimaryBackupServer extends Server<Record> {
  static final Duration BACKUP_TIMEOUT = Duration.ofSeconds(1);
  static final Duration FORWARD_TIMEOUT = Duration.ofMillis(1_500); // the backups' timeout and a round trip
  private NodeId primary;
  private List<NodeId> backups;
  private long seq; // the writes this incarnation stamped

  @Override
  protected void register(Handlers on) {
    on.request(GetReq.class, this::onGet);
    on.request(PutReq.class, this::onPut);
    on.call(Backup.class, this::onBackup);
  }

  @Override
  protected void onStart() {
    primary = topology().node(0, partition());
    backups = topology().allNodes().stream().filter(n -> n.partition() == partition() && !n.equals(primary)).toList();
  }

  /** GET(k): the newest version at the primary. */
  void onGet(Request<GetReq> req) {
    if (!forwarded(req)) {
      req.reply(store().newest(req.body().getKey())
          .map(r -> GetReply.newBuilder().setFound(true).setValue(r.getValue()).build())
          .orElse(GetReply.getDefaultInstance()));
    }
  }

  /** PUT(k, v) at the primary: stamp, store, copy to the backups; answer once they acknowledged. */
  void onPut(Request<PutReq> req) {
    if (!forwarded(req)) {
      Backup copy = Backup.newBuilder().setKey(req.body().getKey()).setRecord(Record.newBuilder()
          .setValue(req.body().getValue()).setIncarnation(incarnation()).setSeq(++seq)).build();
      keep(copy);
      callAll(backups, copy, BackupAck.class, acksNeeded(backups), BACKUP_TIMEOUT)
          .onQuorum(acks -> req.reply(PutReply.getDefaultInstance()))
          .onFailure(f -> req.unknown("stored at the primary, not acknowledged by every backup: " + f));
    }
  }

  /** How many backups must acknowledge a write before it is answered: all of them. */
  int acksNeeded(List<NodeId> backups) {
    return backups.size();
  }

  /** Backup(k, d) from the primary: store the copy (a repeat is the same version: no effect), acknowledge. */
  private void onBackup(Request<Backup> req) {
    keep(req.body());
    req.reply(BackupAck.getDefaultInstance());
  }

  private void keep(Backup copy) {
    store().put(copy.getKey(), copy.getRecord());
    store().prune(copy.getKey(), v -> true); // only the newest version is ever read
  }

  /** At a backup: hands the client's request to the primary, whose answer answers it. */
  private boolean forwarded(Request<?> req) {
    if (self().equals(primary)) {
      return false;
    }
    forward(primary, req, FORWARD_TIMEOUT);
    return true;
  }
}
