package org.kvlab.designer.design;

/** Sizes of what the canvas draws (shared by the layout of opened files and the canvas itself). */
final class CanvasGeometry {
  static final double SERVER_W = 96;
  static final double SERVER_H = 40;
  static final double GAP = 10;
  static final double HEADER = 34;
  static final double PAD = 12;

  private CanvasGeometry() {}

  /** A datacenter box: one column per replica, one row per partition. */
  static double dcWidth(Design d) {
    return Math.max(2 * PAD + d.replicas * SERVER_W + (d.replicas - 1) * GAP, 170);
  }

  static double dcHeight(Design d) {
    return HEADER + PAD + d.partitions * SERVER_H + (d.partitions - 1) * GAP + PAD;
  }

  static double serverX(int replica) {
    return PAD + replica * (SERVER_W + GAP);
  }

  static double serverY(int partition) {
    return HEADER + partition * (SERVER_H + GAP);
  }
}
