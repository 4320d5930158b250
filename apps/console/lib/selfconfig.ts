// SelfConfig: the requests agents make to change their own instance (SC1–SC10), as the history in
// PostgreSQL keeps them (selfConfigRequests, with each request's events), and who owns each item
// of an agent's OpenClawInstance (Agent.fieldOwnership, read from its managedFields).
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { ConflictErrorFields, ForbiddenErrorFields, NotFoundErrorFields, ValidationErrorFields } from './errors';
import { gql, graphql, type ResultOf } from './graphql';
import { toPage, type Connection, type PageArgs } from './paging';

/** Submitted is the history's own phase (created, not yet seen by the controller); the rest are SC2's. */
export const SELF_CONFIG_PHASES = ['Submitted', 'Pending', 'AwaitingApproval', 'Verifying', 'Applied', 'Failed', 'Denied', 'Rejected', 'Expired', 'RolledBack'] as const;
export type SelfConfigPhase = (typeof SELF_CONFIG_PHASES)[number];

/** The controller's Warning event for a removal it did not make (SC7). */
export const SKIPPED_REMOVAL_REASON = 'SelfConfigSkippedRemoval';

/** The field managers of the product, in the order the matrix shows them (always); others follow by name. */
export const KNOWN_MANAGERS = ['occ-controller', 'openclaw-selfconfig'] as const;

export const FieldOwnerFields = gql(`fragment FieldOwnerFields on FieldOwner { manager operation }`);

export type FieldOwner = ResultOf<typeof FieldOwnerFields>;

/** What the history keeps of the request (a JSON field, so typed here): names, skills and the
 * configPatch, never literal values. */
export type StoredRequest = {
  addSkills?: string[];
  removeSkills?: string[];
  configPatch?: unknown;
  addWorkspaceFiles?: string[];
  removeWorkspaceFiles?: string[];
  addEnvVars?: string[];
  removeEnvVars?: string[];
};

export type SelfConfigFilter = { agentId: string | null; phase: SelfConfigPhase | null };

export const SELF_CONFIG_PAGE_SIZE = 20;

export const selfConfigKeys = {
  all: ['selfconfig'] as const,
  requests: (namespaceId: string, filter: SelfConfigFilter, args: PageArgs) => [...selfConfigKeys.all, 'requests', namespaceId, filter, args] as const,
  ownership: (agentId: string) => [...selfConfigKeys.all, 'ownership', agentId] as const,
  approvals: (args: PageArgs) => [...selfConfigKeys.all, 'approvals', args] as const,
  budget: (agentId: string) => [...selfConfigKeys.all, 'budget', agentId] as const,
};

// Query: a page of a namespace's requests ------------------------------------------------------------

export const SelfConfigRequestsQuery = gql(`
  query SelfConfigRequests($namespaceId: ID!, $agentId: ID, $phase: String, $first: Int, $after: String) {
    namespace(id: $namespaceId) { id name status }
    selfConfigRequests(namespaceId: $namespaceId, agentId: $agentId, phase: $phase, first: $first, after: $after) {
      edges {
        node {
          id name instanceRef agentId agent { id name } requestedBy { id name kind } request phase reason message
          changes { op kind name }
          skippedRemovals { kind name why managers { ...FieldOwnerFields } }
          events { type reason message on at }
          overriddenBy { revisionId number items at }
          createdAt pendingAt completedAt deletedAt
        }
      }
      pageInfo { hasNextPage endCursor }
      totalCount
    }
  }
`, [FieldOwnerFields]);

type SelfConfigRequestNode = ResultOf<typeof SelfConfigRequestsQuery>['selfConfigRequests']['edges'][number]['node'];
/** The node, with its JSON `request` read as what the history stores. */
export type SelfConfigRequest = Omit<SelfConfigRequestNode, 'request'> & { request: StoredRequest };
export type SkippedRemoval = SelfConfigRequest['skippedRemovals'][number];
export type SelfConfigEvent = SelfConfigRequest['events'][number];
export type SelfConfigOverride = SelfConfigRequest['overriddenBy'][number];

export function selfConfigRequestsQueryOptions(namespaceId: string, filter: SelfConfigFilter, args: PageArgs) {
  return queryOptions({
    queryKey: selfConfigKeys.requests(namespaceId, filter, args),
    queryFn: async ({ signal }) => {
      const data = await graphql(
        SelfConfigRequestsQuery,
        { namespaceId, agentId: filter.agentId, phase: filter.phase, first: args.first, after: args.after },
        signal,
      );
      if (!data.namespace) return null;
      return { namespace: data.namespace, page: toPage(data.selfConfigRequests as Connection<SelfConfigRequest>) };
    },
    placeholderData: keepPreviousData,
    // Submitted, Pending and Verifying requests are on their way to a terminal phase (SC2, SG1): follow them.
    refetchInterval: (query) => (query.state.data?.page.items.some((r) => IN_FLIGHT.has(r.phase)) ? 2000 : false),
  });
}

/** Phases a request leaves by itself, soon: the lists follow them. AwaitingApproval waits for a person. */
const IN_FLIGHT = new Set(['Submitted', 'Pending', 'Verifying']);

/** SG2: one line of a request's change, as the controller's status writes it: `+ skill "fetch"`. */
export function changeLine(change: { op: string; kind: string; name: string }): string {
  const sign = change.op === 'add' ? '+' : change.op === 'remove' ? '-' : '~';
  return `${sign} ${change.kind} ${JSON.stringify(change.name)}`;
}

// Query and mutations: SG3's approval inbox ------------------------------------------------------------

export const SelfConfigApprovalsQuery = gql(`
  query SelfConfigApprovals($first: Int, $after: String) {
    selfConfigApprovals(first: $first, after: $after) {
      edges {
        node {
          id name namespaceId agent { id name } requestedBy { id name kind } request message awaitingApprovalAt
          changes { op kind name }
          skippedRemovals { kind name why managers { ...FieldOwnerFields } }
        }
      }
      pageInfo { hasNextPage endCursor }
      totalCount
    }
  }
`, [FieldOwnerFields]);

type ApprovalNode = ResultOf<typeof SelfConfigApprovalsQuery>['selfConfigApprovals']['edges'][number]['node'];
export type WaitingRequest = Omit<ApprovalNode, 'request'> & { request: StoredRequest };

export function selfConfigApprovalsQueryOptions(args: PageArgs) {
  return queryOptions({
    queryKey: selfConfigKeys.approvals(args),
    queryFn: async ({ signal }) => toPage((await graphql(SelfConfigApprovalsQuery, { first: args.first, after: args.after }, signal)).selfConfigApprovals as Connection<WaitingRequest>),
    placeholderData: keepPreviousData,
    // Requests arrive, and expire, on their own: the inbox looks again every 10 s.
    refetchInterval: 10_000,
  });
}

export const ApproveSelfConfigMutation = gql(`
  mutation ApproveSelfConfig($input: ApproveSelfConfigInput!) {
    approveSelfConfig(input: $input) {
      __typename
      ... on ApproveSelfConfigSuccess { request { id name phase } }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...ValidationErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, ValidationErrorFields]);

export const RejectSelfConfigMutation = gql(`
  mutation RejectSelfConfig($input: RejectSelfConfigInput!) {
    rejectSelfConfig(input: $input) {
      __typename
      ... on RejectSelfConfigSuccess { request { id name phase } }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
      ...ConflictErrorFields
      ...ValidationErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields, ConflictErrorFields, ValidationErrorFields]);

export type ApproveSelfConfigResult = ResultOf<typeof ApproveSelfConfigMutation>['approveSelfConfig'];
export type RejectSelfConfigResult = ResultOf<typeof RejectSelfConfigMutation>['rejectSelfConfig'];

/** SG3: an administrator of the agent approves; the controller then plans it again against the instance as it is. */
export async function approveSelfConfig(requestId: string): Promise<ApproveSelfConfigResult> {
  return (await graphql(ApproveSelfConfigMutation, { input: { requestId } })).approveSelfConfig;
}

/** SG3: an administrator of the agent rejects, with a reason kept on the request and in the audit log. */
export async function rejectSelfConfig(requestId: string, reason: string): Promise<RejectSelfConfigResult> {
  return (await graphql(RejectSelfConfigMutation, { input: { requestId, reason: reason || null } })).rejectSelfConfig;
}

// Query and mutation: an agent's SG4 budget, and resuming a paused agent ------------------------------

export const AgentSelfConfigBudgetQuery = gql(`
  query AgentSelfConfigBudget($id: ID!) {
    agent(id: $id) {
      id name selfConfigure { enabled }
      selfConfigBudget {
        requestsPerHour appliedPerDay pauseAfterRollbacks fromInstance
        requestsInLastHour appliedInLastDay rollbacksSinceResume paused
        refusal { reason message refillsAt }
      }
    }
  }
`);

export type AgentSelfConfigBudget = NonNullable<NonNullable<ResultOf<typeof AgentSelfConfigBudgetQuery>['agent']>['selfConfigBudget']>;

export function agentSelfConfigBudgetQueryOptions(agentId: string) {
  return queryOptions({
    queryKey: selfConfigKeys.budget(agentId),
    queryFn: async ({ signal }) => (await graphql(AgentSelfConfigBudgetQuery, { id: agentId }, signal)).agent,
  });
}

export const ResumeSelfConfigMutation = gql(`
  mutation ResumeSelfConfig($input: ResumeSelfConfigInput!) {
    resumeSelfConfig(input: $input) {
      __typename
      ... on ResumeSelfConfigSuccess { rollbacksResumed }
      ...NotFoundErrorFields
      ...ForbiddenErrorFields
    }
  }
`, [NotFoundErrorFields, ForbiddenErrorFields]);

export type ResumeSelfConfigResult = ResultOf<typeof ResumeSelfConfigMutation>['resumeSelfConfig'];

/** SG4: an administrator ends an agent's pause after its rollbacks (audited). */
export async function resumeSelfConfig(agentId: string): Promise<ResumeSelfConfigResult> {
  return (await graphql(ResumeSelfConfigMutation, { input: { agentId } })).resumeSelfConfig;
}

/** The filter from the page's address: `&agent=agt_…` and `&phase=Applied`; anything else is ignored. */
export function selfConfigFilterFrom(params: URLSearchParams): SelfConfigFilter {
  const agentId = params.get('agent')?.trim() || null;
  const phase = params.get('phase')?.trim() ?? '';
  return { agentId, phase: (SELF_CONFIG_PHASES as readonly string[]).includes(phase) ? (phase as SelfConfigPhase) : null };
}

// Query: one agent's field ownership --------------------------------------------------------------------

export const AgentFieldOwnershipQuery = gql(`
  query AgentFieldOwnership($id: ID!) {
    agent(id: $id) {
      id name namespace { id }
      fieldOwnership { instanceName k8sNamespace resourceVersion items { kind name path owners { ...FieldOwnerFields } } }
    }
  }
`, [FieldOwnerFields]);

export type InstanceFieldOwnership = NonNullable<NonNullable<ResultOf<typeof AgentFieldOwnershipQuery>['agent']>['fieldOwnership']>;
export type OwnedItem = InstanceFieldOwnership['items'][number];

export function agentFieldOwnershipQueryOptions(agentId: string) {
  return queryOptions({
    queryKey: selfConfigKeys.ownership(agentId),
    queryFn: async ({ signal }) => (await graphql(AgentFieldOwnershipQuery, { id: agentId }, signal)).agent,
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A config key path as the API names it (packages/domain configPathString): dotted, a key that is not a plain word quoted. */
const configPathName = (path: readonly string[]) => path.map((k) => (/^[A-Za-z0-9_\-@$]+$/.test(k) ? k : JSON.stringify(k))).join('.');

/** The config keys a request's merge patch sets or removes (a null removes), one by one, as the matrix names them. */
export function configPatchKeys(patch: unknown, prefix: string[] = []): { name: string; removes: boolean }[] {
  if (!isObject(patch)) return [];
  const out: { name: string; removes: boolean }[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const path = [...prefix, key];
    if (isObject(value) && Object.keys(value).length > 0) out.push(...configPatchKeys(value, path));
    else out.push({ name: configPathName(path), removes: value === null });
  }
  return out;
}

/** The kinds of item, in the order the matrix groups them; an unknown kind follows, under its own name. */
const ITEM_GROUPS: { kind: string; label: string }[] = [
  { kind: 'skill', label: 'Skills' },
  { kind: 'envVar', label: 'Env vars' },
  { kind: 'workspaceFile', label: 'Workspace files' },
  { kind: 'config', label: 'Config keys' },
];

export type OwnershipRow = { item: OwnedItem; cells: string[][] };
export type OwnershipGroup = { kind: string; label: string; rows: OwnershipRow[] };

/** Code-unit order, as the API sorts names: the same on every machine, whatever its locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Config keys by their path, key by key, so a key's children follow it: `tools`, `tools.web`, `tools.web.x`, `tools2`. */
function byPath(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = byText(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

const pathOf = (item: OwnedItem) => item.path ?? item.name.split('.');

/**
 * The items an instance's managers own, grouped by kind (skills, env vars, workspace files, config
 * keys one by one), each group sorted by name (config keys by path); the managers as columns, the
 * product's two first even when one owns nothing, and for each row the operations by which each
 * manager owns it.
 */
export function ownershipMatrix(items: OwnedItem[]): { managers: string[]; groups: OwnershipGroup[] } {
  const seen = new Set<string>();
  for (const item of items) for (const owner of item.owners) seen.add(owner.manager);
  // The product's two managers always have their column: an empty agent column says the agent holds nothing.
  const known = [...KNOWN_MANAGERS];
  const others = [...seen].filter((m) => !(KNOWN_MANAGERS as readonly string[]).includes(m)).sort(byText);
  const managers = [...known, ...others];
  const row = (item: OwnedItem): OwnershipRow => ({
    item,
    // A manager can own an item by both Apply and Update (two managedFields entries).
    cells: managers.map((manager) => item.owners.filter((o) => o.manager === manager).map((o) => o.operation)),
  });
  const kinds = [...ITEM_GROUPS, ...[...new Set(items.map((i) => i.kind))].filter((k) => !ITEM_GROUPS.some((g) => g.kind === k)).sort(byText).map((kind) => ({ kind, label: kind }))];
  const groups = kinds
    .map(({ kind, label }) => {
      const members = items.filter((i) => i.kind === kind);
      members.sort(kind === 'config' ? (a, b) => byPath(pathOf(a), pathOf(b)) : (a, b) => byText(a.name, b.name));
      return { kind, label, rows: members.map(row) };
    })
    .filter((g) => g.rows.length > 0);
  return { managers, groups };
}

/** How an item reads in a row header: `skills/web-search`, `env/LOG_LEVEL`, `files/AGENTS.md`, `config.tools.x`. */
export function itemLabel(item: { kind: string; name: string }): string {
  switch (item.kind) {
    case 'skill':
      return `skills/${item.name}`;
    case 'envVar':
      return `env/${item.name}`;
    case 'workspaceFile':
      return `files/${item.name}`;
    case 'config':
      return `config.${item.name}`;
    default:
      return item.name;
  }
}
