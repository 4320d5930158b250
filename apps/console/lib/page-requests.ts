// What each page asks on load, as its screens ask it (lib/first-requests.ts starts these from the
// page's HTML). Only requests whose variables come from the address alone: a request that needs an
// earlier answer (explainAccess needs the viewer's id) waits for the screen. Read by the pages'
// server components only: nothing here reaches the browser's JavaScript.
import { AccessBindingsForResourceQuery, ResourceAccessBindingsInNamespaceQuery, RolesQuery } from './access';
import { AGENTS_PAGE_SIZE, NamespaceAgentsQuery } from './agents';
import { AUDIT_FILTER_KEYS, AUDIT_PAGE_SIZE, AuditEventsQuery } from './audit';
import { CONFIGURATIONS_PAGE_SIZE, NamespaceConfigurationsQuery } from './configurations';
import type { FirstRequest } from './first-requests';
import { NamespaceHealthQuery } from './namespace-health';
import { NAMESPACES_PAGE_SIZE, NamespacesQuery } from './namespaces';
import { PAGE_SIZE } from './page-size';
import { NamespaceReferenceGraphQuery, REFERENCE_GRAPH_PAGE } from './reference-graph';
import { NamespaceSecretsQuery, SECRETS_PAGE_SIZE } from './secrets';
import { SELF_CONFIG_PAGE_SIZE, SelfConfigApprovalsQuery, SelfConfigRequestsQuery } from './selfconfig';
import { BootstrapPrincipalQuery, USERS_PAGE_SIZE, UsersQuery } from './users';
import { ViewerQuery } from './viewer';

type Route = 'namespaces' | 'secrets' | 'configurations' | 'agents' | 'references' | 'access' | 'audit' | 'selfconfig' | 'selfconfigApprovals' | 'users';

const FIRST_PAGE = { after: null, namePrefix: null } as const;
const NAMESPACE = { $param: 'namespace' } as const;
/** The list's order chosen on the page (components/ui/use-list-order.ts); absent: the document's default. */
const ORDER = { $param: 'order', absent: 'omit' } as const;
/** On the namespace's list (no `&id=`: that opens one object instead). */
const ON_LIST = { requires: ['namespace'], unless: ['id'] } as const;

/** The header's question on every page but the sign-in page. */
const viewer: FirstRequest = { query: ViewerQuery };
/** The namespace picker beside a namespace's heading. */
const namespaceOptions: FirstRequest = { query: NamespacesQuery, variables: { first: NAMESPACES_PAGE_SIZE, ...FIRST_PAGE }, requires: ['namespace'] };
const users: FirstRequest = { query: UsersQuery, variables: { first: USERS_PAGE_SIZE, ...FIRST_PAGE } };
const bootstrapPrincipal: FirstRequest = { query: BootstrapPrincipalQuery };
const allOf = (query: string, first: number): FirstRequest => ({ query, variables: { id: NAMESPACE, first, ...FIRST_PAGE }, requires: ['namespace'] });

export const PAGE_REQUESTS: Readonly<Record<Route, readonly FirstRequest[]>> = {
  namespaces: [
    viewer,
    { query: NamespacesQuery, variables: { first: PAGE_SIZE, ...FIRST_PAGE, order: ORDER } },
    { query: NamespaceHealthQuery, variables: { first: PAGE_SIZE, ...FIRST_PAGE, order: ORDER } },
  ],
  secrets: [
    viewer,
    namespaceOptions,
    { query: NamespaceSecretsQuery, variables: { id: NAMESPACE, first: PAGE_SIZE, ...FIRST_PAGE, stale: { $flag: 'stale' }, used: { $flag: 'used' }, order: ORDER }, ...ON_LIST },
  ],
  configurations: [viewer, namespaceOptions, { query: NamespaceConfigurationsQuery, variables: { id: NAMESPACE, first: PAGE_SIZE, ...FIRST_PAGE, order: ORDER }, ...ON_LIST }],
  agents: [
    viewer,
    namespaceOptions,
    { query: NamespaceAgentsQuery, variables: { id: NAMESPACE, first: PAGE_SIZE, ...FIRST_PAGE, status: { $param: 'status' }, order: ORDER }, ...ON_LIST },
    { ...allOf(NamespaceConfigurationsQuery, CONFIGURATIONS_PAGE_SIZE), ...ON_LIST },
  ],
  references: [viewer, namespaceOptions, { query: NamespaceReferenceGraphQuery, variables: { id: NAMESPACE, first: REFERENCE_GRAPH_PAGE, after: null }, requires: ['namespace'] }],
  access: [
    viewer,
    namespaceOptions,
    allOf(NamespaceSecretsQuery, SECRETS_PAGE_SIZE),
    allOf(NamespaceConfigurationsQuery, CONFIGURATIONS_PAGE_SIZE),
    allOf(NamespaceAgentsQuery, AGENTS_PAGE_SIZE),
    users,
    bootstrapPrincipal,
    { query: AccessBindingsForResourceQuery, variables: { resourceId: NAMESPACE, resourceKind: 'namespace' }, requires: ['namespace'] },
    { query: ResourceAccessBindingsInNamespaceQuery, variables: { namespaceId: NAMESPACE, resourceKind: 'secret' }, requires: ['namespace'] },
    { query: RolesQuery, variables: { namespaceId: NAMESPACE }, requires: ['namespace'] },
  ],
  audit: [
    viewer,
    users,
    bootstrapPrincipal,
    { query: AuditEventsQuery, variables: { first: AUDIT_PAGE_SIZE, after: null, filter: { $params: AUDIT_FILTER_KEYS } } },
  ],
  selfconfig: [
    viewer,
    namespaceOptions,
    allOf(NamespaceAgentsQuery, AGENTS_PAGE_SIZE),
    {
      query: SelfConfigRequestsQuery,
      variables: { namespaceId: NAMESPACE, agentId: { $param: 'agent' }, phase: { $param: 'phase' }, first: SELF_CONFIG_PAGE_SIZE, after: null },
      requires: ['namespace'],
    },
  ],
  selfconfigApprovals: [viewer, { query: SelfConfigApprovalsQuery, variables: { first: SELF_CONFIG_PAGE_SIZE, after: null } }],
  users: [viewer, { query: UsersQuery, variables: { first: PAGE_SIZE, ...FIRST_PAGE }, unless: ['id'] }, { ...bootstrapPrincipal, unless: ['id'] }],
};
