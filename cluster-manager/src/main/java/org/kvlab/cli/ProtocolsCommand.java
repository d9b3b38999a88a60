package org.kvlab.cli;

import java.util.concurrent.Callable;
import org.kvlab.api.Protocol;
import org.kvlab.api.Protocols;
import picocli.CommandLine.Command;

@Command(name = "protocols", mixinStandardHelpOptions = true, description = "List the installed protocols.")
final class ProtocolsCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    for (Protocol p : Protocols.all()) {
      System.out.printf("%-16s %s%n", p.name(), p.summary());
    }
    return Main.OK;
  }
}
