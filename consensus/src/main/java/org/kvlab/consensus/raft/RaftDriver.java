package org.kvlab.consensus.raft;

import io.microraft.RaftEndpoint;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.VoteRequest;
import io.microraft.statemachine.StateMachine;
import io.microraft.transport.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.kvlab.api.BackPressureException;
import org.kvlab.api.ServerContext;

/**
 * MicroRaft's integration points, all on the server's event loop: its executor runs tasks as the context's timers,
 * its transport sends through the context's channels, its clock is the context's, and its state machine is the
 * group's ({@link RaftGroup#runOperation} and the snapshot hooks).
 */
final class RaftDriver {
  private final ServerContext ctx;
  private final RaftGroup<?> group;

  RaftDriver(ServerContext ctx, RaftGroup<?> group) {
    this.ctx = ctx;
    this.group = group;
  }

  RaftNodeExecutor executor() {
    return new RaftNodeExecutor() {
      @Override
      public void execute(Runnable task) {
        ctx.after(Duration.ZERO, task);
      }

      @Override
      public void submit(Runnable task) {
        ctx.after(Duration.ZERO, task);
      }

      @Override
      public void schedule(Runnable task, long delay, TimeUnit unit) {
        ctx.after(Duration.ofNanos(unit.toNanos(delay)), task);
      }
    };
  }

  Transport transport() {
    return new Transport() {
      @Override
      public void send(RaftEndpoint target, RaftMessage message) {
        if (message instanceof PreVoteRequest || message instanceof VoteRequest) {
          group.watchdogAlive(); // an election under way (sent or not: a peer may be down)
        }
        try {
          ctx.send(RaftCodec.node(target), group.codec.encode(message));
        } catch (BackPressureException e) {
          // Raft tolerates lost messages: the leader resends on its next heartbeat or append
        }
      }

      @Override
      public boolean isReachable(RaftEndpoint endpoint) {
        return true;
      }
    };
  }

  Clock clock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public long millis() {
        return ctx.clock().millis();
      }

      @Override
      public Instant instant() {
        return Instant.ofEpochMilli(ctx.clock().millis());
      }
    };
  }

  StateMachine stateMachine() {
    return new StateMachine() {
      @Override
      public Object runOperation(long commitIndex, Object operation) {
        group.runOperation(commitIndex, operation);
        return commitIndex;
      }

      @Override
      public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
        group.takeSnapshot(commitIndex, chunks);
      }

      @Override
      public void installSnapshot(long commitIndex, List<Object> chunks) {
        group.installSnapshot(commitIndex, chunks);
      }

      @Override
      public Object getNewTermOperation() {
        return group.newTermOperation();
      }
    };
  }
}
