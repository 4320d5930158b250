// R6 and P1: an operation's name is written by the client, so it becomes a metrics label or a log
// field only when it is one of the product's own documents (the console's, apps/console/lib; a
// test holds the two lists together). Any other name is `_other`, so no caller, anonymous or not,
// can mint label values or put a chosen word into the logs.

export const KNOWN_OPERATION_NAMES: ReadonlySet<string> = new Set([
  'AbortSecretRollout', 'AccessBindingsForResource', 'Agent', 'AgentFieldOwnership', 'AgentGateway', 'AgentRevisions',
  'AgentRuntime', 'AgentSelfConfigBudget', 'ApiKeys', 'ApproveSecretRollout', 'ApproveSelfConfig', 'AuditEvents',
  'BootstrapPrincipal', 'Configuration', 'ConfigurationGenerations', 'CreateAgent', 'CreateApiKey',
  'CreateConfiguration', 'CreateNamespace', 'CreateSecret', 'CreateUser', 'DeleteAgent', 'DeleteConfiguration',
  'DeleteSecret', 'DeployAgent', 'DisableUser', 'ExplainAccess', 'ExplainDeploy', 'GrantAccess', 'NamespaceAgents',
  'NamespaceConfigurations', 'NamespaceHealth', 'NamespaceReferenceGraph', 'NamespaceReferenceGraphRest', 'NamespaceRotationPolicy', 'NamespaceSecrets', 'Namespaces', 'PauseSecretRollout', 'RedeployConsumers',
  'RejectSelfConfig', 'ReprovisionNamespace', 'ResourceAccessBindingsInNamespace', 'ResumeSecretRollout',
  'ResumeSelfConfig', 'RevisionDiff', 'RevokeAccess', 'RevokeApiKey', 'Roles', 'RollbackAgent', 'SecretBlastRadius', 'SecretOptions', 'SecretReferences',
  'Search', 'SecretRollout', 'SecretRotation', 'SecretStaleConsumers', 'SecretVersions', 'SelfConfigApprovals',
  'SelfConfigRequests', 'SetNamespaceSecretRotationPolicy', 'SetSecretRotationPolicy', 'StopAgent', 'SubjectAccessBindings', 'UpdateConfiguration',
  'UpdateSecret', 'Users', 'Viewer',
]);

/** The name to label and log an operation by: its own if the product sends it, else `_other`. */
export function operationLabel(name: string | undefined): string {
  if (!name) return '_anonymous';
  return KNOWN_OPERATION_NAMES.has(name) ? name : '_other';
}
