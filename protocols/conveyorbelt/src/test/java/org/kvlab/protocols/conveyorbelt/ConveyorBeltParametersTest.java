package org.kvlab.protocols.conveyorbelt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvlab.api.ParameterException;
import org.kvlab.api.Params;
import org.kvlab.api.Topology;
import org.kvlab.api.TopologyException;
import org.kvlab.partitioning.operations.OperationClass;

/** The declared parameters, refused values with their fix, and the classification and routing the servers use. */
class ConveyorBeltParametersTest {
  private static void refused(Map<String, String> p, String contains) {
    ParameterException e = assertThrows(ParameterException.class,
        () -> new ConveyorBelt().checkParameters(new Params(p), new Topology(3, 1)));
    assertTrue(e.getMessage().contains(contains), e.getMessage());
  }

  @Test
  void when_parametersAreWrong_then_theErrorNamesTheFix() {
    assertEquals(List.of("operations", "serviceMicros", "routing", "handOffRetry", "wakeRetry"),
        List.copyOf(new ConveyorBelt().parameters().keySet()));
    new ConveyorBelt().checkParameters(Params.empty(), new Topology(5, 1));
    refused(Map.of("operations", "/nonexistent/ops.yaml"), "does not exist");
    refused(Map.of("serviceMicros", "-5"), "is negative");
    refused(Map.of("routing", "anywhere"), "anywhere");
    refused(Map.of("wakeRetry", "0ms"), "more than 0");
    assertThrows(TopologyException.class, () -> new ConveyorBelt().checkParameters(Params.empty(),
        new Topology(3, 2)));
  }

  @Test
  void when_theOnlineStoreIsClassified_then_operationsGoWhereTheirCartRoutes() {
    Classification c = Classification.load("store");
    Classification.Kind add = c.of("addToCart", List.of("1@x", "3", "2"), 3);
    assertEquals(OperationClass.L, add.cls());
    assertEquals(1, add.server(), "a server-specific id routes to its server");
    assertEquals(Math.floorMod("17".hashCode(), 3), c.of("create", List.of("17"), 3).server());
    assertEquals(OperationClass.G, c.of("order", List.of("1@x", "9"), 3).cls());
    assertEquals(1, c.of("order", List.of("1@x", "9"), 3).server());
    Classification.Kind browse = c.of("browseCatalog", List.of(), 3);
    assertEquals(OperationClass.C, browse.cls());
    assertEquals(-1, browse.server());
    Classification.Kind get = c.of("", List.of(), 3);
    assertEquals(OperationClass.G, get.cls(), "an undeclared operation is global where it arrives");
    assertEquals(-1, get.server());
    assertEquals(List.of(), Classification.undeclared(add, List.of("cart:1@x", "stock:3"), List.of("cart:1@x")));
    assertEquals(List.of("writes stock:3"), Classification.undeclared(add, List.of("cart:1@x", "stock:3"),
        List.of("stock:3")));
    assertEquals(List.of(), c.soundness(3));
    assertEquals(OperationClass.L, Classification.load("micro").of("microLocal", List.of(), 3).cls());
    assertEquals(OperationClass.G, Classification.load("micro").of("microGlobal", List.of("1"), 3).cls());
  }
}
