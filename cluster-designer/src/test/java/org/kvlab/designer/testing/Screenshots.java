package org.kvlab.designer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.Scene;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;

/**
 * Saves what a window shows as a PNG under {@code target/screenshots} (system property
 * {@code kvlab.screenshots}), for people to look at and for docs/designer.md.
 */
public final class Screenshots {
  private Screenshots() {}

  /** The directory screenshots go to. */
  public static Path dir() {
    return Path.of(System.getProperty("kvlab.screenshots", "target/screenshots"));
  }

  /** Renders the scene as it is now and writes {@code name.png}; returns the file. */
  public static Path save(Scene scene, String name) {
    CompletableFuture<WritableImage> image = new CompletableFuture<>();
    Runnable shot = () -> {
      try {
        image.complete(scene.snapshot(null));
      } catch (RuntimeException e) {
        image.completeExceptionally(e);
      }
    };
    if (Platform.isFxApplicationThread()) {
      shot.run();
    } else {
      Platform.runLater(shot);
    }
    try {
      WritableImage img = image.get(30, TimeUnit.SECONDS);
      Files.createDirectories(dir());
      Path file = dir().resolve(name + ".png");
      ImageIO.write(SwingFXUtils.fromFXImage(img, null), "png", file.toFile());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("screenshot " + name + " failed: " + e, e);
    }
  }
}
