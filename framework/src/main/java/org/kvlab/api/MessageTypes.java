package org.kvlab.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The protobuf message types a protocol exchanges (requests, replies and server-to-server messages).
 * A type's wire id is its position in this list, so clients and servers of one protocol agree on ids;
 * the {@link #fingerprint()} (a hash of the full names in order) is checked at every connection
 * handshake, so a mismatched build fails loudly instead of misparsing.
 */
public final class MessageTypes {
  private final List<Class<? extends Message>> types;
  private final List<Parser<? extends Message>> parsers;
  private final Map<Class<?>, Integer> ids = new HashMap<>();
  private final long fingerprint;

  private MessageTypes(List<Class<? extends Message>> types) {
    this.types = List.copyOf(types);
    this.parsers = new ArrayList<>(types.size());
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < types.size(); i++) {
      Class<? extends Message> type = types.get(i);
      if (ids.putIfAbsent(type, i) != null) {
        throw new IllegalArgumentException("message type " + type.getName() + " is listed twice");
      }
      Message prototype = defaultInstance(type);
      parsers.add(prototype.getParserForType());
      for (byte b : prototype.getDescriptorForType().getFullName().getBytes(StandardCharsets.UTF_8)) {
        h = (h ^ (b & 0xff)) * 0x100000001b3L;
      }
      h = (h ^ 0xff) * 0x100000001b3L;
    }
    this.fingerprint = h;
  }

  @SafeVarargs
  public static MessageTypes of(Class<? extends Message>... types) {
    return new MessageTypes(List.of(types));
  }

  private static Message defaultInstance(Class<? extends Message> type) {
    try {
      return (Message) type.getMethod("getDefaultInstance").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type.getName() + " is not a generated protobuf message class", e);
    }
  }

  /** The wire id of {@code type}; fails naming the type if the protocol did not list it. */
  public int idOf(Class<? extends Message> type) {
    Integer id = ids.get(type);
    if (id == null) {
      throw new IllegalArgumentException("message type " + type.getName()
          + " is not in the protocol's message list: add it to Protocol.messages()");
    }
    return id;
  }

  public boolean contains(Class<?> type) {
    return ids.containsKey(type);
  }

  public Class<? extends Message> typeOf(int id) {
    return types.get(id);
  }

  public int size() {
    return types.size();
  }

  /** Parses a body of wire type {@code id}; throws on an unknown id or malformed bytes. */
  public Message parse(int id, com.google.protobuf.ByteString body) throws InvalidProtocolBufferException {
    if (id < 0 || id >= parsers.size()) {
      throw new InvalidProtocolBufferException("unknown message type id " + id + " (protocol has " + parsers.size() + ")");
    }
    return parsers.get(id).parseFrom(body);
  }

  /** The parser of wire type {@code id}'s messages (a runtime parses bodies with it straight from its buffers). */
  public Parser<? extends Message> parser(int id) {
    return parsers.get(id);
  }

  public long fingerprint() {
    return fingerprint;
  }

  public List<Class<? extends Message>> types() {
    return types;
  }
}
