import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate } from 'graphql';
import { expect, test } from '@playwright/test';
import {
  AccessBindingsForResourceQuery,
  ExplainAccessQuery,
  GrantAccessMutation,
  ResourceAccessBindingsInNamespaceQuery,
  RevokeAccessMutation,
  RolesQuery,
  SubjectAccessBindingsQuery,
} from '../../apps/console/lib/access';
import { AuditEventsQuery } from '../../apps/console/lib/audit';
import { AgentRuntimeQuery } from '../../apps/console/lib/agent-runtime';
import { AgentQuery, CreateAgentMutation, DeleteAgentMutation, NamespaceAgentsQuery } from '../../apps/console/lib/agents';
import {
  AgentRevisionsQuery,
  DeployAgentMutation,
  ExplainDeployQuery,
  RedeployConsumersMutation,
  SecretStaleConsumersQuery,
  StopAgentMutation,
} from '../../apps/console/lib/deploy';
import {
  ConfigurationGenerationsQuery,
  ConfigurationQuery,
  CreateConfigurationMutation,
  DeleteConfigurationMutation,
  NamespaceConfigurationsQuery,
  UpdateConfigurationMutation,
} from '../../apps/console/lib/configurations';
import { ReprovisionNamespaceMutation } from '../../apps/console/lib/namespace-reprovision';
import { CreateNamespaceMutation, NamespacesQuery } from '../../apps/console/lib/namespaces';
import { AgentGatewayQuery, SecretReferencesQuery } from '../../apps/console/lib/references';
import {
  CreateSecretMutation,
  DeleteSecretMutation,
  NamespaceSecretsQuery,
  UpdateSecretMutation,
} from '../../apps/console/lib/secrets';
import { AgentFieldOwnershipQuery, SelfConfigRequestsQuery } from '../../apps/console/lib/selfconfig';
import {
  ApiKeysQuery,
  BootstrapPrincipalQuery,
  CreateApiKeyMutation,
  CreateUserMutation,
  DisableUserMutation,
  RevokeApiKeyMutation,
  UsersQuery,
} from '../../apps/console/lib/users';
import { ViewerQuery } from '../../apps/console/lib/viewer';

// Cross-package: the console's documents exactly as it sends them (each with the fragments it spreads
// appended, once) against the SDL the API commits. The console's typecheck already validates the
// document sources (gql-tada check); this checks the assembled text too: a fragment missing, sent
// twice or left unused fails here with its name, not as a blank screen.
const sdlPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../apps/api/schema.graphql');

const documents = {
  NamespacesQuery,
  CreateNamespaceMutation,
  ReprovisionNamespaceMutation,
  NamespaceSecretsQuery,
  CreateSecretMutation,
  UpdateSecretMutation,
  DeleteSecretMutation,
  DeleteConfigurationMutation,
  DeleteAgentMutation,
  SecretReferencesQuery,
  AgentGatewayQuery,
  ViewerQuery,
  NamespaceConfigurationsQuery,
  ConfigurationQuery,
  ConfigurationGenerationsQuery,
  CreateConfigurationMutation,
  UpdateConfigurationMutation,
  NamespaceAgentsQuery,
  AgentQuery,
  AgentRuntimeQuery,
  CreateAgentMutation,
  AccessBindingsForResourceQuery,
  SubjectAccessBindingsQuery,
  RolesQuery,
  ExplainAccessQuery,
  GrantAccessMutation,
  RevokeAccessMutation,
  UsersQuery,
  ApiKeysQuery,
  CreateUserMutation,
  DisableUserMutation,
  CreateApiKeyMutation,
  RevokeApiKeyMutation,
  ResourceAccessBindingsInNamespaceQuery,
  BootstrapPrincipalQuery,
  AuditEventsQuery,
  SelfConfigRequestsQuery,
  AgentFieldOwnershipQuery,
  ExplainDeployQuery,
  AgentRevisionsQuery,
  DeployAgentMutation,
  StopAgentMutation,
  SecretStaleConsumersQuery,
  RedeployConsumersMutation,
};

test('the console GraphQL documents are valid against apps/api/schema.graphql', () => {
  const schema = buildSchema(readFileSync(sdlPath, 'utf8'));
  for (const [name, source] of Object.entries(documents)) {
    const errors = validate(schema, parse(source)).map((error) => error.message);
    expect(errors, name).toEqual([]);
  }
});
