package org.kvlab.consensus.raft;

import com.google.protobuf.ByteString;
import com.google.protobuf.Int64Value;
import com.google.protobuf.StringValue;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.kvlab.api.BaseProtocol;
import org.kvlab.api.Client;
import org.kvlab.api.Handlers;
import org.kvlab.api.MessageTypes;
import org.kvlab.api.NodeId;
import org.kvlab.api.RecordType;
import org.kvlab.api.Request;
import org.kvlab.api.Server;

/**
 * A replicated log over {@link RaftGroup}, the smallest protocol that uses it (tests): a PUT's value is proposed to
 * partition 0's group of datacenter 0 and acknowledged with the index it committed at; each replica's state is the
 * map of index to value it applied, which its snapshots hold whole. The replicas of the last run are in {@link #LIVE}
 * (the simulator runs on the test's thread).
 */
public final class RaftLog extends BaseProtocol {
  static final MessageTypes MESSAGES = MessageTypes.of(StringValue.class, Int64Value.class, Raft.class);
  static final String JOURNAL = "\u0000raftlog.raft";
  static final RaftJournal.Format<JournalEntry> FORMAT = RaftJournal.entries(JOURNAL);
  static final RecordType<JournalEntry> RECORD = RecordType.of(JournalEntry.class,
      e -> RaftJournal.versionKey(e.getSeq()));
  /** The running server of each replica (a restarted replica's new server replaces its old one). */
  static final Map<NodeId, LogServer> LIVE = new HashMap<>();

  public RaftLog() {
    super("raftlog", "a replicated log over a Raft group (consensus tests)", MESSAGES, RECORD, LogServer::new,
        LogClient::new);
  }

  /** A replica. */
  static final class LogServer extends Server<JournalEntry> implements RaftGroup.Machine<StringValue> {
    RaftGroup<StringValue> raft;
    NodeId id;
    /** What this replica applied: index to value. */
    final TreeMap<Long, String> applied = new TreeMap<>();
    /** Its journal held records when it started (a restart). */
    boolean restarted;
    int installed;
    int restored;

    @Override
    protected void register(Handlers on) {
      on.request(StringValue.class, this::onPut);
      on.message(Raft.class, (m, from) -> raft.handle(m, from));
    }

    @Override
    protected void onStart() {
      id = self();
      LIVE.put(id, this);
      restarted = !store().versions(JOURNAL).isEmpty();
      RaftGroup.Settings settings = new RaftGroup.Settings("log", topology().replicasOf(0, 0),
          Duration.ofMillis(500), Duration.ofSeconds(2), params().intValue("snapshotEvery", 1_000_000),
          params().intValue("snapshotWriteBytes", 256 << 10), "raftlog");
      raft = new RaftGroup<>(context(), settings, StringValue.parser(), FORMAT, this);
      raft.start();
    }

    @Override
    public String role() {
      return raft == null ? null : raft.role();
    }

    private void onPut(Request<StringValue> req) {
      if (!raft.isReadyLeader()) {
        // Not the leader: the client tries the next replica, after a pause while the group elects one.
        after(Duration.ofMillis(raft.leader() == null ? 20 : 0), () -> req.reply(Int64Value.of(0)));
        return;
      }
      raft.propose(req.body(), (index, failure) -> {
        if (failure == null) {
          req.reply(Int64Value.of(index));
        } else if (!failure.appended()) {
          req.fail("not appended: " + failure.cause());
        } else {
          req.unknown("may commit: " + failure.cause());
        }
      });
    }

    @Override
    public void apply(long index, StringValue op) {
      String before = applied.put(index, op.getValue());
      if (before != null) {
        throw new AssertionError(self() + " applied index " + index + " twice: " + before + ", " + op.getValue());
      }
    }

    @Override
    public void takeSnapshot(long index, Consumer<ByteString> parts) {
      StringBuilder all = new StringBuilder();
      applied.forEach((i, v) -> all.append(i).append('=').append(v).append('\n'));
      parts.accept(ByteString.copyFromUtf8(all.toString()));
    }

    @Override
    public void installSnapshot(long index, java.util.List<ByteString> parts, boolean fromJournal) {
      applied.clear();
      for (ByteString part : parts) {
        for (String line : part.toStringUtf8().split("\n")) {
          if (!line.isEmpty()) {
            int eq = line.indexOf('=');
            applied.put(Long.parseLong(line.substring(0, eq)), line.substring(eq + 1));
          }
        }
      }
      if (fromJournal) {
        restored++;
      } else {
        installed++;
      }
      metrics().count(fromJournal ? "raftlog.snapshot.restored" : "raftlog.snapshot.installed");
    }
  }

  /** A client: a PUT goes to the replica it last found leading, and round the group while one says it is not. */
  static final class LogClient extends Client {
    private int target;

    @Override
    public CompletableFuture<Optional<ByteString>> get(String key) {
      return CompletableFuture.failedFuture(new UnsupportedOperationException("the log takes only PUTs"));
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteString value) {
      return attempt(key + "=" + value.toStringUtf8(), 0);
    }

    private CompletableFuture<Void> attempt(String value, int tries) {
      int replicas = topology().replicas();
      if (tries >= 4 * replicas) {
        return CompletableFuture.failedFuture(new IllegalStateException("no leader after " + tries + " tries"));
      }
      return call(NodeId.of(0, 0, target), StringValue.of(value), Int64Value.class).thenCompose(r -> {
        if (r.getValue() > 0) {
          return CompletableFuture.completedFuture(null);
        }
        target = (target + 1) % replicas;
        return attempt(value, tries + 1);
      });
    }
  }
}
