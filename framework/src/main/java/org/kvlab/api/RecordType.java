package org.kvlab.api;

import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import java.util.function.Function;

/**
 * What a protocol stores per version: a protobuf record class and the order of its versions.
 *
 * @param type the generated record class
 * @param parser its parser (stores persist records as protobuf bytes)
 * @param versionKey maps a record to its version key, see {@link VersionKey}
 */
public record RecordType<R extends Message>(Class<R> type, Parser<R> parser, Function<R, byte[]> versionKey) {

  @SuppressWarnings("unchecked")
  public static <R extends Message> RecordType<R> of(Class<R> type, Function<R, byte[]> versionKey) {
    try {
      R prototype = (R) type.getMethod("getDefaultInstance").invoke(null);
      return new RecordType<>(type, (Parser<R>) prototype.getParserForType(), versionKey);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type.getName() + " is not a generated protobuf message class", e);
    }
  }
}
