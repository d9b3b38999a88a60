package org.kvlab.designer.design;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javafx.geometry.Bounds;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Pane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.QuadCurve;
import javafx.scene.shape.Rectangle;
import org.kvlab.api.NodeId;

/**
 * The drawing of a design: one box per datacenter holding its servers (a row per partition, a column per
 * replica), and a line between every two datacenters labelled with their round-trip time. A person selects
 * with a click (shift-click adds or removes, a drag on the background draws a selection rectangle) and
 * moves datacenters by dragging them. Elements are named as {@link DesignValidator.Problem#target()} names
 * them ({@code dc:0}, {@code server:0_1}, {@code link:0:1}); a problem is drawn on its element.
 */
final class DesignCanvas {
  private static final String DC_STYLE = "-fx-background-color: #f4f7fb; -fx-background-radius: 10; -fx-border-radius: 10;"
      + " -fx-border-width: 2;";
  private final Pane pane = new Pane();
  private final Pane links = new Pane();
  private final Pane boxes = new Pane();
  private final Rectangle band = new Rectangle();
  private final Set<String> selection = new LinkedHashSet<>();
  private final Map<Integer, Pane> dcNodes = new HashMap<>();
  private Design design;
  private Map<String, List<String>> problems = Map.of();
  /** The client groups to draw: datacenter to the group's label (from the experiment file; empty if none). */
  private Map<Integer, String> clients = Map.of();
  /** Called after the selection changed (to show the selected element's properties). */
  Consumer<Set<String>> onSelect = s -> {};
  /** Called before a drag moves datacenters (to keep an undo step) and after it (to refresh). */
  Runnable onMoveStart = () -> {};
  Runnable onMoved = () -> {};
  /** Called when a link label is double-clicked (opens the latency matrix). */
  Runnable onEditLinks = () -> {};
  /** Called when a client group is dropped on another datacenter: (from, to). */
  java.util.function.BiConsumer<Integer, Integer> onMoveClients = (a, b) -> {};

  /** The client group being dragged (its datacenter), or -1. */
  private int clientDrag = -1;

  private double pressX;
  private double pressY;
  private boolean dragging;
  private boolean banding;
  private boolean selectionPending;
  private final Map<Integer, double[]> dragOrigin = new HashMap<>();

  DesignCanvas() {
    pane.setId("design-canvas");
    pane.setStyle("-fx-background-color: white;");
    links.setPickOnBounds(false);
    boxes.setPickOnBounds(false);
    band.setFill(Color.rgb(60, 120, 220, 0.12));
    band.setStroke(Color.rgb(60, 120, 220));
    band.getStrokeDashArray().addAll(4.0, 4.0);
    band.setVisible(false);
    band.setMouseTransparent(true);
    pane.getChildren().addAll(links, boxes, band);
    pane.addEventHandler(MouseEvent.MOUSE_PRESSED, this::pressed);
    pane.addEventHandler(MouseEvent.MOUSE_DRAGGED, this::dragged);
    pane.addEventHandler(MouseEvent.MOUSE_RELEASED, this::released);
  }

  Pane node() {
    return pane;
  }

  Set<String> selection() {
    return selection;
  }

  void select(Set<String> targets) {
    selection.clear();
    selection.addAll(targets);
    redraw();
    onSelect.accept(selection);
  }

  void show(Design design, Map<String, List<String>> problems, Map<Integer, String> clients) {
    this.design = design;
    this.problems = problems;
    this.clients = clients;
    selection.removeIf(s -> !exists(s));
    redraw();
  }

  private boolean exists(String target) {
    String[] t = target.split(":");
    return switch (t[0]) {
      case "dc" -> Integer.parseInt(t[1]) < design.datacenters();
      case "server" -> {
        NodeId id = NodeId.parse(t[1]);
        yield id.dc() < design.datacenters() && id.partition() < design.partitions && id.replica() < design.replicas;
      }
      case "link" -> Integer.parseInt(t[2]) < design.datacenters();
      case "clients" -> clients.containsKey(Integer.parseInt(t[1])) && Integer.parseInt(t[1]) < design.datacenters();
      default -> false;
    };
  }

  void redraw() {
    boxes.getChildren().clear();
    dcNodes.clear();
    double maxX = 600;
    double maxY = 400;
    for (int d = 0; d < design.datacenters(); d++) {
      Pane box = dcBox(d);
      boxes.getChildren().add(box);
      dcNodes.put(d, box);
      maxX = Math.max(maxX, design.dcs.get(d).x + CanvasGeometry.dcWidth(design) + 60);
      maxY = Math.max(maxY, design.dcs.get(d).y + CanvasGeometry.dcHeight(design) + 160);
    }
    if (design.datacenters() == 1 && design.partitions == 1 && design.replicas == 1) {
      Label hint = new Label("Add datacenters, partitions and replicas with the toolbar (+ Datacenter, + Partition,"
          + " + Replica).\nClick a server, a datacenter or an RTT label to edit it on the right; drag datacenters to"
          + " arrange them;\nshift-click or drag a rectangle to select several; Delete, Ctrl+C / Ctrl+V, Ctrl+Z / Ctrl+Y.");
      hint.setId("canvas-hint");
      hint.setStyle("-fx-text-fill: #7a8aa0; -fx-font-size: 12px;");
      hint.relocate(40, design.dcs.get(0).y + CanvasGeometry.dcHeight(design) + 40);
      boxes.getChildren().add(hint);
    }
    pane.setMinSize(maxX, maxY);
    pane.setPrefSize(maxX, maxY);
    drawLinks();
  }

  private Pane dcBox(int d) {
    Design.Dc dc = design.dcs.get(d);
    double w = CanvasGeometry.dcWidth(design);
    double h = CanvasGeometry.dcHeight(design);
    Pane box = new Pane();
    box.setId("dc-" + d);
    box.setPrefSize(w, h);
    box.resize(w, h);
    box.relocate(dc.x, dc.y);
    boolean selected = selection.contains("dc:" + d);
    box.setStyle(DC_STYLE + "-fx-border-color: " + (selected ? "#2f6fdd" : "#8aa4c8") + ";"
        + (selected ? " -fx-effect: dropshadow(gaussian, #2f6fdd, 8, 0.3, 0, 0);" : ""));
    Label title = new Label("datacenter " + d);
    title.setStyle("-fx-font-weight: bold; -fx-font-size: 13px; -fx-text-fill: #1d3557;");
    title.relocate(CanvasGeometry.PAD, 8);
    box.getChildren().add(title);
    List<String> dcProblems = new ArrayList<>();
    for (int p = 0; p < design.partitions; p++) {
      for (int r = 0; r < design.replicas; r++) {
        String id = Design.idText(d, p, r);
        List<String> mine = problems.getOrDefault("server:" + id, List.of());
        mine.forEach(m -> dcProblems.add(id + ": " + m));
        box.getChildren().add(serverBox(new NodeId(d, p, r), id, mine));
      }
    }
    double below = h + 6;
    String group = clients.get(d);
    if (group != null) {
      box.getChildren().add(clientBox(d, group, w, h));
      below += CLIENT_H + CLIENT_GAP;
    }
    if (!dcProblems.isEmpty()) {
      Label callout = new Label("\u26a0 " + String.join("\n\u26a0 ", dcProblems));
      callout.setId("dc-problems-" + d);
      callout.setWrapText(true);
      callout.setMaxWidth(Math.max(w, 300));
      callout.setStyle("-fx-text-fill: #b00020; -fx-background-color: #fff0f0; -fx-border-color: #e0a0a0;"
          + " -fx-padding: 4; -fx-font-size: 11px;");
      callout.relocate(0, below);
      box.getChildren().add(callout);
    }
    return box;
  }

  static final double CLIENT_H = 36;
  static final double CLIENT_GAP = 8;

  /** A datacenter's client group, under its box (it moves with it; drag it onto another datacenter to move it). */
  private Node clientBox(int d, String text, double w, double h) {
    boolean selected = selection.contains("clients:" + d);
    Label l = new Label("\u21c4 " + text);
    l.setId("clients-" + d);
    l.setAlignment(Pos.CENTER);
    l.setTextAlignment(javafx.scene.text.TextAlignment.CENTER);
    l.setPadding(new Insets(0, 8, 0, 8));
    l.setPrefSize(w, CLIENT_H);
    l.resize(w, CLIENT_H);
    l.relocate(0, h + CLIENT_GAP);
    l.setStyle("-fx-background-color: " + (selected ? "#cdeccd" : "#eaf7ea") + "; -fx-background-radius: 14;"
        + " -fx-border-radius: 14; -fx-border-color: " + (selected ? "#2f6fdd" : "#5fa35f") + "; -fx-border-width: "
        + (selected ? 2 : 1) + "; -fx-font-size: 11px; -fx-text-fill: #1f4d1f;");
    Tooltip.install(l, new Tooltip("the client JVMs of datacenter " + d + " (the experiment file's clients: section):\n"
        + text.substring(text.indexOf('\n') + 1) + "\nclick to select, drag onto another datacenter to move the load there, Delete to remove"));
    return l;
  }

  private Node serverBox(NodeId nid, String id, List<String> mine) {
    VBox s = new VBox(1);
    s.setId("server-" + id);
    s.setAlignment(Pos.CENTER);
    s.setPadding(new Insets(2, 4, 2, 4));
    s.setPrefSize(CanvasGeometry.SERVER_W, CanvasGeometry.SERVER_H);
    s.resize(CanvasGeometry.SERVER_W, CanvasGeometry.SERVER_H);
    s.relocate(CanvasGeometry.serverX(nid.replica()), CanvasGeometry.serverY(nid.partition()));
    boolean selected = selection.contains("server:" + id);
    String border = !mine.isEmpty() ? "#d00020" : selected ? "#2f6fdd" : "#6c8ebf";
    String fill = !mine.isEmpty() ? "#ffe3e3" : selected ? "#d6e6ff" : "#dae8fc";
    s.setStyle("-fx-background-color: " + fill + "; -fx-background-radius: 6; -fx-border-radius: 6; -fx-border-color: "
        + border + "; -fx-border-width: " + (selected || !mine.isEmpty() ? 2 : 1) + ";");
    Label name = new Label((mine.isEmpty() ? "" : "\u26a0 ") + id
        + (design.replicas > 1 ? "  (r" + nid.replica() + ")" : "  (p" + nid.partition() + ")"));
    name.setStyle("-fx-font-weight: bold; -fx-font-size: 11px;" + (mine.isEmpty() ? "" : " -fx-text-fill: #b00020;"));
    Label addr = new Label(design.hostOf(nid) + ":" + design.portOf(nid));
    addr.setStyle("-fx-font-size: 10px; -fx-text-fill: #333;");
    s.getChildren().addAll(name, addr);
    String skew = design.skew.get(id);
    Tooltip.install(s, new Tooltip("server " + id + " (datacenter " + nid.dc() + ", partition " + nid.partition()
        + (design.replicas > 1 ? ", replica " + nid.replica() : "") + ")\n" + design.hostOf(nid) + ":"
        + design.portOf(nid) + (skew == null ? "" : "\nclock skew " + skew)
        + (mine.isEmpty() ? "" : "\n\n" + String.join("\n", mine))));
    return s;
  }

  private void drawLinks() {
    links.getChildren().clear();
    int n = design.datacenters();
    double w = CanvasGeometry.dcWidth(design);
    double h = CanvasGeometry.dcHeight(design);
    List<Node> labels = new ArrayList<>();
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        Design.Dc da = design.dcs.get(a);
        Design.Dc db = design.dcs.get(b);
        double x1 = da.x + w / 2;
        double y1 = da.y + h / 2;
        double x2 = db.x + w / 2;
        double y2 = db.y + h / 2;
        String key = "link:" + a + ":" + b;
        List<String> mine = problems.getOrDefault(key, List.of());
        boolean selected = selection.contains(key);
        // a link that would run under another datacenter's box bends around it
        int blocking = 0;
        for (int c = 0; c < n; c++) {
          if (c != a && c != b && crosses(x1, y1, x2, y2, design.dcs.get(c), w, h)) {
            blocking++;
          }
        }
        double len = Math.max(1, Math.hypot(x2 - x1, y2 - y1));
        double nx = -(y2 - y1) / len;
        double ny = (x2 - x1) / len;
        double bend = blocking == 0 ? 0 : 2 * (h / 2 + 28 + 22 * (b - a - 2));
        double cx = (x1 + x2) / 2 + nx * bend;
        double cy = (y1 + y2) / 2 + ny * bend;
        QuadCurve line = new QuadCurve(x1, y1, cx, cy, x2, y2);
        line.setFill(null);
        line.setStroke(!mine.isEmpty() ? Color.web("#d00020") : selected ? Color.web("#2f6fdd") : Color.web("#7a8aa0"));
        line.setStrokeWidth(selected ? 3 : 2);
        if (design.rtt == null) {
          line.getStrokeDashArray().addAll(6.0, 6.0);
        }
        String rtt = design.rtt == null ? "no delay" : "RTT " + design.rtt[a][b];
        Label label = new Label((mine.isEmpty() ? "" : "\u26a0 ") + rtt);
        label.setId("link-" + a + "-" + b);
        label.setStyle("-fx-background-color: " + (selected ? "#d6e6ff" : "white") + "; -fx-border-color: "
            + (!mine.isEmpty() ? "#d00020" : "#7a8aa0") + "; -fx-padding: 1 5 1 5; -fx-font-size: 11px;"
            + (mine.isEmpty() ? "" : " -fx-text-fill: #b00020;"));
        Tooltip.install(label, new Tooltip("datacenter " + a + " \u2194 " + b + ": " + rtt
            + "\nclick to select, double-click for the latency matrix"
            + (mine.isEmpty() ? "" : "\n\n" + String.join("\n", mine))));
        // the middle of the curve (of the straight line when it does not bend)
        double mx = 0.25 * x1 + 0.5 * cx + 0.25 * x2;
        double my = 0.25 * y1 + 0.5 * cy + 0.25 * y2;
        label.relocate(mx - 7 - 3.2 * rtt.length(), my - 10);
        links.getChildren().add(line);
        labels.add(label);
      }
    }
    links.getChildren().addAll(labels);
  }

  /** Whether the segment passes through a datacenter's box (sampled; boxes are large next to the step). */
  private static boolean crosses(double x1, double y1, double x2, double y2, Design.Dc c, double w, double h) {
    for (int i = 1; i < 40; i++) {
      double t = i / 40.0;
      double x = x1 + (x2 - x1) * t;
      double y = y1 + (y2 - y1) * t;
      if (x > c.x - 4 && x < c.x + w + 4 && y > c.y - 4 && y < c.y + h + 4) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Mouse: select, move, rubber band

  /** What is under a point of the canvas: a server, a link label, a datacenter, or null. */
  private String hit(double x, double y) {
    for (Node n : links.getChildren()) {
      if (n instanceof Label l && l.getBoundsInParent().contains(x, y)) {
        String[] ab = l.getId().substring("link-".length()).split("-");
        return "link:" + ab[0] + ":" + ab[1];
      }
    }
    double w = CanvasGeometry.dcWidth(design);
    double h = CanvasGeometry.dcHeight(design);
    for (int d = design.datacenters() - 1; d >= 0; d--) {
      Design.Dc dc = design.dcs.get(d);
      double cy = dc.y + h + CLIENT_GAP;
      if (clients.containsKey(d) && x >= dc.x && x <= dc.x + w && y >= cy && y <= cy + CLIENT_H) {
        return "clients:" + d;
      }
    }
    for (int d = design.datacenters() - 1; d >= 0; d--) {
      Design.Dc dc = design.dcs.get(d);
      if (x >= dc.x && x <= dc.x + w && y >= dc.y && y <= dc.y + h) {
        for (int p = 0; p < design.partitions; p++) {
          for (int r = 0; r < design.replicas; r++) {
            double sx = dc.x + CanvasGeometry.serverX(r);
            double sy = dc.y + CanvasGeometry.serverY(p);
            if (x >= sx && x <= sx + CanvasGeometry.SERVER_W && y >= sy && y <= sy + CanvasGeometry.SERVER_H) {
              return "server:" + Design.idText(d, p, r);
            }
          }
        }
        return "dc:" + d;
      }
    }
    return null;
  }

  private void pressed(MouseEvent e) {
    if (e.getButton() != MouseButton.PRIMARY || design == null) {
      return;
    }
    pane.requestFocus();
    pressX = e.getX();
    pressY = e.getY();
    dragging = false;
    banding = false;
    String hit = hit(pressX, pressY);
    if (hit != null && hit.startsWith("link:") && e.getClickCount() == 2) {
      onEditLinks.run();
      return;
    }
    if (hit == null) {
      if (!e.isShiftDown()) {
        selection.clear();
      }
      banding = true;
      band.setX(pressX);
      band.setY(pressY);
      band.setWidth(0);
      band.setHeight(0);
      band.setVisible(true);
    } else if (e.isShiftDown()) {
      if (!selection.remove(hit)) {
        selection.add(hit);
      }
    } else if (!selection.contains(hit)) {
      selection.clear();
      selection.add(hit);
    }
    dragOrigin.clear();
    clientDrag = hit != null && hit.startsWith("clients:") ? Integer.parseInt(hit.substring(8)) : -1;
    if (hit != null && !hit.startsWith("link:") && !hit.startsWith("clients:")) {
      for (int d : draggedDcs(hit)) {
        dragOrigin.put(d, new double[] {design.dcs.get(d).x, design.dcs.get(d).y});
      }
    }
    if (hit == null) {
      redraw();
      onSelect.accept(selection);
    } else {
      // the pressed node must stay in the scene until the release, or the drag events would be lost
      selectionPending = true;
    }
  }

  /** The datacenters a drag that starts on {@code hit} moves: the selected ones, or the one under the mouse. */
  private Set<Integer> draggedDcs(String hit) {
    Set<Integer> dcs = new LinkedHashSet<>();
    for (String s : selection) {
      if (s.startsWith("dc:")) {
        dcs.add(Integer.parseInt(s.substring(3)));
      } else if (s.startsWith("server:")) {
        dcs.add(NodeId.parse(s.substring(7)).dc());
      }
    }
    if (hit.startsWith("dc:")) {
      dcs.add(Integer.parseInt(hit.substring(3)));
    } else if (hit.startsWith("server:")) {
      dcs.add(NodeId.parse(hit.substring(7)).dc());
    }
    return dcs;
  }

  private void dragged(MouseEvent e) {
    if (design == null) {
      return;
    }
    double dx = e.getX() - pressX;
    double dy = e.getY() - pressY;
    if (banding) {
      band.setX(Math.min(pressX, e.getX()));
      band.setY(Math.min(pressY, e.getY()));
      band.setWidth(Math.abs(dx));
      band.setHeight(Math.abs(dy));
      return;
    }
    if (clientDrag >= 0 && (dragging || Math.hypot(dx, dy) >= 4)) {
      // the group follows the mouse; where it is dropped decides
      dragging = true;
      Pane box = dcNodes.get(clientDrag);
      Node group = box == null ? null : box.lookup("#clients-" + clientDrag);
      if (group != null) {
        group.relocate(dx, CanvasGeometry.dcHeight(design) + CLIENT_GAP + dy);
        group.setOpacity(0.7);
        box.toFront();
      }
      return;
    }
    if (dragOrigin.isEmpty() || (!dragging && Math.hypot(dx, dy) < 4)) {
      return;
    }
    if (!dragging) {
      dragging = true;
      onMoveStart.run();
    }
    for (Map.Entry<Integer, double[]> o : dragOrigin.entrySet()) {
      Design.Dc dc = design.dcs.get(o.getKey());
      dc.x = Math.max(0, o.getValue()[0] + dx);
      dc.y = Math.max(0, o.getValue()[1] + dy);
      Pane box = dcNodes.get(o.getKey());
      if (box != null) {
        box.relocate(dc.x, dc.y);
      }
    }
    drawLinks();
  }

  private void released(MouseEvent e) {
    if (banding) {
      band.setVisible(false);
      banding = false;
      Bounds r = band.getBoundsInParent();
      if (r.getWidth() > 3 || r.getHeight() > 3) {
        selectInside(band.getX(), band.getY(), band.getWidth(), band.getHeight());
      }
      redraw();
      onSelect.accept(selection);
      return;
    }
    if (dragging && clientDrag >= 0) {
      dragging = false;
      selectionPending = false;
      int from = clientDrag;
      clientDrag = -1;
      String target = hit(e.getX(), e.getY());
      int to = -1;
      if (target != null && target.startsWith("dc:")) {
        to = Integer.parseInt(target.substring(3));
      } else if (target != null && target.startsWith("server:")) {
        to = NodeId.parse(target.substring(7)).dc();
      } else if (target != null && target.startsWith("clients:")) {
        to = Integer.parseInt(target.substring(8));
      }
      redraw();
      if (to >= 0 && to != from) {
        onMoveClients.accept(from, to);
      } else {
        onSelect.accept(selection);
      }
      return;
    }
    clientDrag = -1;
    if (dragging) {
      dragging = false;
      redraw();
      onMoved.run();
    }
    if (selectionPending) {
      selectionPending = false;
      redraw();
      onSelect.accept(selection);
    }
  }

  /** Adds to the selection every datacenter inside the rectangle, and every server inside it otherwise. */
  private void selectInside(double x, double y, double w, double h) {
    double dw = CanvasGeometry.dcWidth(design);
    double dh = CanvasGeometry.dcHeight(design);
    for (int d = 0; d < design.datacenters(); d++) {
      Design.Dc dc = design.dcs.get(d);
      if (dc.x >= x && dc.y >= y && dc.x + dw <= x + w && dc.y + dh <= y + h) {
        selection.add("dc:" + d);
        continue;
      }
      for (int p = 0; p < design.partitions; p++) {
        for (int r = 0; r < design.replicas; r++) {
          double sx = dc.x + CanvasGeometry.serverX(r);
          double sy = dc.y + CanvasGeometry.serverY(p);
          if (sx >= x && sy >= y && sx + CanvasGeometry.SERVER_W <= x + w && sy + CanvasGeometry.SERVER_H <= y + h) {
            selection.add("server:" + Design.idText(d, p, r));
          }
        }
      }
    }
  }
}
