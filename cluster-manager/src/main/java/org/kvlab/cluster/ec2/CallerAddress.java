package org.kvlab.cluster.ec2;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The public address of the machine that runs kvlab, which the security groups let in (SSH and the cluster's
 * ports). Pluggable: the CLI uses {@link #fixed} for {@code --caller-cidr} and {@link #checkIp} otherwise; tests
 * use {@link #fixed} only (they never ask a public service).
 */
@FunctionalInterface
public interface CallerAddress {
  /** The caller's address as a CIDR block (an IPv4 address alone means /32). */
  String cidr() throws IOException, InterruptedException;

  static CallerAddress fixed(String cidr) {
    return () -> cidr;
  }

  /** Asks {@code https://checkip.amazonaws.com} (AWS's own what-is-my-address service). */
  static CallerAddress checkIp() {
    return () -> {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      HttpRequest request = HttpRequest.newBuilder(URI.create("https://checkip.amazonaws.com"))
          .timeout(Duration.ofSeconds(10)).build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("https://checkip.amazonaws.com answered HTTP " + response.statusCode());
      }
      return response.body().strip();
    };
  }
}
