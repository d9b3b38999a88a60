package org.kvlab.cluster.ec2;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * One EC2 client per region, all with the same credentials and (for an emulator) the same endpoint. Uses the JDK's
 * HTTP connection (the SDK's url-connection-client), so neither Netty's nor Apache's HTTP client is needed.
 */
public final class Ec2Clients implements AutoCloseable {
  private final AwsCredentialsProvider credentials;
  private final URI endpoint;
  private final List<ExecutionInterceptor> interceptors;
  private final Function<String, Ec2Client> factory;
  private final Map<String, Ec2Client> byRegion = new ConcurrentHashMap<>();

  /**
   * @param credentials where credentials come from: {@link #defaultChain()} outside tests
   * @param endpoint an endpoint override (an EC2 emulator), or null for AWS's own endpoints
   */
  public Ec2Clients(AwsCredentialsProvider credentials, URI endpoint) {
    this(credentials, endpoint, List.of());
  }

  /** With SDK interceptors on every call (e.g. auditing, or tests that make AWS answer with a given error). */
  public Ec2Clients(AwsCredentialsProvider credentials, URI endpoint, List<ExecutionInterceptor> interceptors) {
    this.credentials = credentials;
    this.endpoint = endpoint;
    this.interceptors = List.copyOf(interceptors);
    this.factory = null;
  }

  /**
   * With the client of each region made by {@code factory}: for tests that fake EC2 answers no emulator gives
   * (instance states and their reasons, eventual consistency).
   */
  public Ec2Clients(AwsCredentialsProvider credentials, Function<String, Ec2Client> factory) {
    this.credentials = credentials;
    this.endpoint = null;
    this.interceptors = List.of();
    this.factory = factory;
  }

  /**
   * The SDK's default credentials chain: system properties {@code aws.accessKeyId}/{@code aws.secretAccessKey},
   * environment {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}, web identity, the profile in
   * {@code ~/.aws/credentials} and {@code ~/.aws/config} (also SSO), container and instance roles. kvlab never
   * writes credentials anywhere.
   */
  public static AwsCredentialsProvider defaultChain() {
    return DefaultCredentialsProvider.builder().build();
  }

  public AwsCredentialsProvider credentials() {
    return credentials;
  }

  /** The endpoint override, or null. */
  public URI endpoint() {
    return endpoint;
  }

  public Ec2Client region(String region) {
    return byRegion.computeIfAbsent(region, r -> {
      if (factory != null) {
        return factory.apply(r);
      }
      var b = Ec2Client.builder()
          .region(Region.of(r))
          .credentialsProvider(credentials)
          .httpClient(UrlConnectionHttpClient.create())
          .overrideConfiguration(c -> interceptors.forEach(c::addExecutionInterceptor));
      if (endpoint != null) {
        b.endpointOverride(endpoint);
      }
      return b.build();
    });
  }

  @Override
  public void close() {
    byRegion.values().forEach(Ec2Client::close);
    byRegion.clear();
  }
}
