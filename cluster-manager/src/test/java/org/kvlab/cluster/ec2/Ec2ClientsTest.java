package org.kvlab.cluster.ec2;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.profiles.ProfileFile;

/**
 * The credential sources docs/ec2.md promises need SDK modules the default chain loads by reflection: without
 * {@code sso}/{@code ssooidc} an SSO profile fails with "the 'sso' service module must be on the class path", without
 * {@code sts} assume-role profiles and web identity fail likewise. Nothing here reaches the network.
 */
class Ec2ClientsTest {
  @TempDir
  Path dir;

  @Test
  void the_modules_the_default_chain_loads_by_name_are_on_the_class_path() {
    for (String factory : new String[] {
        "software.amazon.awssdk.services.sso.auth.SsoProfileCredentialsProviderFactory",
        "software.amazon.awssdk.services.sts.internal.StsProfileCredentialsProviderFactory",
        "software.amazon.awssdk.services.sts.internal.StsWebIdentityCredentialsProviderFactory",
        "software.amazon.awssdk.services.ssooidc.SsoOidcTokenProvider"}) {
      assertDoesNotThrow(() -> Class.forName(factory), factory);
    }
  }

  @Test
  void an_sso_profile_gets_past_the_module_check_to_its_token() throws Exception {
    Path config = dir.resolve("config");
    Files.writeString(config, """
        [profile lab]
        sso_start_url = https://example.awsapps.com/start
        sso_region = us-east-1
        sso_account_id = 111122223333
        sso_role_name = kvlab
        region = us-east-1
        """);
    ProfileFile file = ProfileFile.builder().content(config).type(ProfileFile.Type.CONFIGURATION).build();
    ProfileCredentialsProvider p = ProfileCredentialsProvider.builder().profileFile(file).profileName("lab").build();
    RuntimeException e = assertThrows(RuntimeException.class, p::resolveCredentials);
    String all = String.valueOf(e.getMessage()) + " " + (e.getCause() == null ? "" : e.getCause().getMessage());
    assertFalse(all.contains("must be on the class path"), all);
    assertTrue(all.toLowerCase(java.util.Locale.ROOT).contains("token") || all.contains("sso"), all);
  }
}
