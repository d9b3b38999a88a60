package org.kvlab.designer.testing;

import javafx.scene.input.KeyCode;
import org.testfx.api.FxRobot;

/** Typing into a window's text fields as a person does it. */
public final class Typing {
  private Typing() {}

  /**
   * Clicks the field {@code query}, selects all it holds (Ctrl+A) and types {@code text} over it; returns the robot to
   * type more (e.g. ENTER). Cheaper than erasing character by character ({@code eraseText(80)}): TestFX waits for
   * the JavaFX thread after every key press and release, so 80 backspaces cost about 10 s of a test.
   */
  public static FxRobot replaceText(FxRobot robot, String query, String text) {
    robot.clickOn(query);
    robot.press(KeyCode.CONTROL).type(KeyCode.A).release(KeyCode.CONTROL);
    robot.write(text);
    return robot;
  }
}
