package org.kvlab.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.CompositeArchRule;

/**
 * The build rule behind "protocol code takes time, randomness, timers and I/O only from its context": a
 * protocol's main classes may not read a clock, make randomness, start threads, lock, sleep or do I/O on their
 * own, because the simulator could then no longer replay a run from its seed. Each protocol module runs
 * {@link #assertDeterministic(String)} on its package in a unit test; a violation names the class, the member
 * it touched and the line, e.g. {@code Method <...Server.onPut(...)> calls method <java.lang.System.nanoTime()>
 * in (GentleRainServer.java:88)}. Use {@code ctx.clock()}, {@code ctx.random()}, {@code ctx.timer...} and
 * {@code send}/{@code call} instead.
 */
public final class ProtocolRules {
  private ProtocolRules() {}

  /** {@code Instant.now()}, {@code LocalDateTime.now()}, {@code Clock.systemUTC()} and friends. */
  private static final DescribedPredicate<JavaMethodCall> CLOCK_NOW = DescribedPredicate.describe(
      "a java.time clock (now(), system*())", call -> call.getTargetOwner().getPackageName().equals("java.time")
          && (call.getName().equals("now") || call.getName().startsWith("system")));

  /** The rule itself, for tests that want to evaluate it (e.g. on a deliberately bad class). */
  public static ArchRule rule() {
    return CompositeArchRule.of(
        noClasses().should().callMethod(System.class, "currentTimeMillis")
            .orShould().callMethod(System.class, "nanoTime")
            .orShould().callMethod(Math.class, "random")
            .orShould().callMethod(Thread.class, "sleep", long.class)
            .orShould().callMethod(java.util.UUID.class, "randomUUID")
            .orShould().callMethodWhere(CLOCK_NOW)
            .because("time must come from ctx.clock(), so the simulator controls it"))
        .and(noClasses().should().callConstructor(java.util.Random.class)
            .orShould().callConstructor(java.util.Random.class, long.class)
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ThreadLocalRandom")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom")
            .because("randomness must come from ctx.random(), which the simulator seeds"))
        .and(noClasses().should().dependOnClassesThat().areAssignableTo(Thread.class)
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.Executors")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Timer")
            .orShould().dependOnClassesThat().resideInAPackage("java.util.concurrent.locks..")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.concurrent.ScheduledExecutorService")
            .because("a protocol runs on its node's single event loop: timers come from ctx, no threads or locks"))
        .and(noClasses().should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..",
                "java.nio.file..", "io.netty..")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.File")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileInputStream")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileOutputStream")
            .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.RandomAccessFile")
            .because("messages go through send/call and state through ctx.store(), which the simulator intercepts"));
  }

  /** Imports the main (non-test) classes of {@code protocolPackage} and its sub-packages. */
  public static JavaClasses mainClassesOf(String protocolPackage) {
    return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages(protocolPackage);
  }

  /** Fails with every violation if a main class of {@code protocolPackage} breaks the rule. */
  public static void assertDeterministic(String protocolPackage) {
    JavaClasses classes = mainClassesOf(protocolPackage);
    if (classes.isEmpty()) {
      throw new AssertionError("no main classes found in package " + protocolPackage
          + ": is the package name right and the module compiled?");
    }
    rule().check(classes);
  }

  /** The rule's result on arbitrary classes (tests of the rule itself). */
  public static EvaluationResult evaluate(JavaClasses classes) {
    return rule().evaluate(classes);
  }
}
