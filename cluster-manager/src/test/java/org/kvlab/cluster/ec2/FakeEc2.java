package org.kvlab.cluster.ec2;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.AuthorizeSecurityGroupIngressRequest;
import software.amazon.awssdk.services.ec2.model.AuthorizeSecurityGroupIngressResponse;
import software.amazon.awssdk.services.ec2.model.CreateSecurityGroupRequest;
import software.amazon.awssdk.services.ec2.model.CreateSecurityGroupResponse;
import software.amazon.awssdk.services.ec2.model.DeleteKeyPairRequest;
import software.amazon.awssdk.services.ec2.model.DeleteKeyPairResponse;
import software.amazon.awssdk.services.ec2.model.DeleteSecurityGroupRequest;
import software.amazon.awssdk.services.ec2.model.DeleteSecurityGroupResponse;
import software.amazon.awssdk.services.ec2.model.DescribeImagesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeImagesResponse;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.DescribeKeyPairsRequest;
import software.amazon.awssdk.services.ec2.model.DescribeKeyPairsResponse;
import software.amazon.awssdk.services.ec2.model.DescribeSecurityGroupsRequest;
import software.amazon.awssdk.services.ec2.model.DescribeSecurityGroupsResponse;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Image;
import software.amazon.awssdk.services.ec2.model.ImportKeyPairRequest;
import software.amazon.awssdk.services.ec2.model.ImportKeyPairResponse;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceState;
import software.amazon.awssdk.services.ec2.model.KeyPairInfo;
import software.amazon.awssdk.services.ec2.model.Reservation;
import software.amazon.awssdk.services.ec2.model.RunInstancesRequest;
import software.amazon.awssdk.services.ec2.model.RunInstancesResponse;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.StateReason;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TerminateInstancesRequest;
import software.amazon.awssdk.services.ec2.model.TerminateInstancesResponse;

/**
 * A small fake of one region's EC2 for what no emulator produces: instance state sequences with EC2's state
 * reasons (pending that fails to terminated, a terminate that stays pending a while), and an instance id not
 * visible yet. Each describe of an instance moves it one step along its scripted states.
 */
final class FakeEc2 implements Ec2Client {
  /** One scripted state: the state name and, if any, EC2's StateReason code. */
  record Step(String state, String reasonCode) {
    static Step of(String state) {
      return new Step(state, null);
    }
  }

  private final String region;
  /** The states each instance started by RunInstances goes through (the last one stays). */
  List<Step> runSteps = List.of(Step.of("pending"), Step.of("running"));
  /** The states after TerminateInstances. */
  List<Step> terminateSteps = List.of(Step.of("shutting-down"), Step.of("terminated"));
  /** How many DescribeInstances by id answer InvalidInstanceID.NotFound after a RunInstances. */
  int notFoundAfterRun;
  final Map<String, Deque<Step>> steps = new LinkedHashMap<>();
  final Map<String, Instance> instances = new LinkedHashMap<>();
  final Map<String, SecurityGroup> groups = new LinkedHashMap<>();
  final Map<String, KeyPairInfo> keys = new LinkedHashMap<>();
  int describes;
  private int next;

  FakeEc2(String region) {
    this.region = region;
  }

  @Override
  public String serviceName() {
    return "ec2";
  }

  @Override
  public void close() {}

  static Ec2Exception error(String code) {
    return (Ec2Exception) Ec2Exception.builder().statusCode(400)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code + " (fake)").build()).build();
  }

  private static boolean tagged(List<Tag> tags, List<Filter> filters) {
    for (Filter f : filters) {
      if (f.name().startsWith("tag:")) {
        String key = f.name().substring(4);
        if (tags.stream().noneMatch(t -> t.key().equals(key) && f.values().contains(t.value()))) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public DescribeImagesResponse describeImages(DescribeImagesRequest r) {
    return DescribeImagesResponse.builder().images(Image.builder().imageId(r.imageIds().get(0)).build()).build();
  }

  @Override
  public ImportKeyPairResponse importKeyPair(ImportKeyPairRequest r) {
    keys.put(r.keyName(), KeyPairInfo.builder().keyName(r.keyName()).keyPairId("key-" + next++)
        .tags(r.tagSpecifications().get(0).tags()).build());
    return ImportKeyPairResponse.builder().keyName(r.keyName()).build();
  }

  @Override
  public CreateSecurityGroupResponse createSecurityGroup(CreateSecurityGroupRequest r) {
    String id = "sg-" + region + "-" + next++;
    groups.put(id, SecurityGroup.builder().groupId(id).groupName(r.groupName()).tags(r.tagSpecifications().get(0).tags()).build());
    return CreateSecurityGroupResponse.builder().groupId(id).build();
  }

  @Override
  public AuthorizeSecurityGroupIngressResponse authorizeSecurityGroupIngress(AuthorizeSecurityGroupIngressRequest r) {
    return AuthorizeSecurityGroupIngressResponse.builder().returnValue(true).build();
  }

  @Override
  public RunInstancesResponse runInstances(RunInstancesRequest r) {
    List<Instance> started = new ArrayList<>();
    for (int n = 0; n < r.minCount(); n++) {
      String id = "i-" + region + "-" + next++;
      Instance i = Instance.builder().instanceId(id).instanceType(r.instanceType())
          .tags(r.tagSpecifications().get(0).tags()).publicIpAddress("54.0.0." + next).privateIpAddress("10.0.0." + next)
          .state(InstanceState.builder().name("pending").build()).build();
      instances.put(id, i);
      steps.put(id, new ArrayDeque<>(runSteps));
      started.add(i);
    }
    return RunInstancesResponse.builder().instances(started).build();
  }

  @Override
  public TerminateInstancesResponse terminateInstances(TerminateInstancesRequest r) {
    r.instanceIds().forEach(id -> steps.put(id, new ArrayDeque<>(terminateSteps)));
    return TerminateInstancesResponse.builder().build();
  }

  /** Moves the instance one step along its script and returns it as it is now. */
  private Instance step(String id) {
    Deque<Step> d = steps.get(id);
    Step s = d.size() > 1 ? d.poll() : d.peek();
    Instance i = instances.get(id).toBuilder().state(InstanceState.builder().name(s.state()).build())
        .stateReason(s.reasonCode() == null ? null
            : StateReason.builder().code(s.reasonCode()).message(s.reasonCode() + ": as EC2 says it (fake)").build())
        .build();
    instances.put(id, i);
    return i;
  }

  @Override
  public DescribeInstancesResponse describeInstances(DescribeInstancesRequest r) {
    describes++;
    List<Instance> out = new ArrayList<>();
    if (r.hasInstanceIds() && !r.instanceIds().isEmpty()) {
      if (notFoundAfterRun > 0) {
        notFoundAfterRun--;
        throw error("InvalidInstanceID.NotFound");
      }
      r.instanceIds().forEach(id -> out.add(step(id)));
    } else {
      List<String> live = r.filters().stream().filter(f -> f.name().equals("instance-state-name"))
          .flatMap(f -> f.values().stream()).toList();
      Predicate<Instance> state = i -> live.isEmpty() || live.contains(i.state().nameAsString());
      instances.values().stream().filter(i -> tagged(i.tags(), r.filters())).filter(state).forEach(out::add);
    }
    return DescribeInstancesResponse.builder().reservations(Reservation.builder().instances(out).build()).build();
  }

  @Override
  public DescribeSecurityGroupsResponse describeSecurityGroups(DescribeSecurityGroupsRequest r) {
    return DescribeSecurityGroupsResponse.builder()
        .securityGroups(groups.values().stream().filter(g -> tagged(g.tags(), r.filters())).toList()).build();
  }

  @Override
  public DescribeKeyPairsResponse describeKeyPairs(DescribeKeyPairsRequest r) {
    return DescribeKeyPairsResponse.builder()
        .keyPairs(keys.values().stream().filter(k -> tagged(k.tags(), r.filters())).toList()).build();
  }

  @Override
  public DeleteSecurityGroupResponse deleteSecurityGroup(DeleteSecurityGroupRequest r) {
    groups.remove(r.groupId());
    return DeleteSecurityGroupResponse.builder().build();
  }

  @Override
  public DeleteKeyPairResponse deleteKeyPair(DeleteKeyPairRequest r) {
    keys.remove(r.keyName());
    return DeleteKeyPairResponse.builder().build();
  }
}
