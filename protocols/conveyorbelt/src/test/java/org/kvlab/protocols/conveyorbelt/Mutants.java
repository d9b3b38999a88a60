package org.kvlab.protocols.conveyorbelt;

/** Deliberately broken variants of the Conveyor Belt, each differing from {@link ConveyorBeltServer} in one rule. */
final class Mutants {
  private Mutants() {}

  /** Bug: a global operation is executed at once at its server, like a local one: no token, no update carried. */
  static ConveyorBelt globalWithoutToken() {
    return new ConveyorBelt(() -> new ConveyorBeltServer() {
      @Override
      boolean needsToken(Classification.Kind k) {
        return false; // BUG
      }
    });
  }

  /**
   * Bug: the token drops an update one hop before its full circle (at the server before its origin's successor, i.e.
   * the origin's successor retires it instead of applying it), so some servers never apply it.
   */
  static ConveyorBelt tokenDropsEarly() {
    return new ConveyorBelt(() -> new ConveyorBeltServer() {
      @Override
      boolean retire(Update u) {
        return super.retire(u) || u.getOrigin() == Math.floorMod(dc() - 1, topology().datacenters()); // BUG
      }
    });
  }
}
