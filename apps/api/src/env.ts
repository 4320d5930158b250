import { DEFAULT_HEALTH_GATE_SECONDS, MAX_HEALTH_GATE_SECONDS } from '@occ/domain/selfconfig-health';
import { DEFAULT_APPROVAL_TTL_SECONDS } from '@occ/domain/selfconfig-approval';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SELF_CONFIG_BUDGET, type SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import { fileURLToPath } from 'node:url';
import { LIMITS } from './graphql/limits.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimitsByKind } from './graphql/principal-budget.ts';
import { z } from 'zod';

// The only place the API reads process.env (create-t3-turbo's habit); everything else receives
// configuration as parameters.

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Env {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  kubeconfig: string | null;
  /** Production without KUBECONFIG, in a pod: the service account's in-cluster configuration. */
  inCluster: boolean;
  consoleDir: string;
  production: boolean;
  /** OCC_ALLOWED_ORIGINS: the only origins given CORS (with credentials); none by default (P2). */
  allowedOrigins: string[];
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /**
   * R2: apply migrations at start (under the migration lock). On by default outside production;
   * in production migrations are their own step (`npm run db:migrate`) and a replica only checks
   * that every committed migration is applied. OCC_MIGRATE_AT_START=true|false overrides.
   */
  migrateAtStart: boolean;
  /**
   * Keep keys, sessions and bindings between requests, forgotten on every change
   * (services/auth-cache.ts; PostgreSQL only). OCC_AUTH_CACHE=false turns it off, for a database
   * reached through a pooler that does not keep LISTEN sessions (PgBouncer in transaction mode).
   */
  authCache: boolean;
  /** R3: where a production bootstrap puts its key: OCC_BOOTSTRAP_SECRET=namespace/name. */
  bootstrapSecret: { namespace: string; name: string } | null;
  /**
   * K1: OCC_TENANT_SERVICE_ACCOUNT=namespace/name, the service account the product runs as in a
   * cluster (deploy/: occ-system/occ-api). Each provisioned namespace gets a RoleBinding of the
   * ClusterRole occ-tenant to it; unset (the embedded server, or credentials that already reach
   * every namespace), none is made.
   */
  tenantServiceAccount: { namespace: string; name: string } | null;
  /** R3: or OCC_BOOTSTRAP_KEY_FILE, written with mode 0600. */
  bootstrapKeyFile: string | null;
  /** R4: the Lease the replicas elect their leader through (OCC_LEADER_NAMESPACE, default `default`). */
  leaderNamespace: string;
  /** R4: OCC_LEADER_LEASE_SECONDS, 15 by default. */
  leaderLeaseSeconds: number;
  /** W1/R4: how long a claimed work item stays leased without a heartbeat (OCC_WORK_LEASE_SECONDS, 30). */
  workLeaseSeconds: number;
  /** W1: work items one worker process runs at once, one per agent at a time (OCC_WORKER_CONCURRENCY, 4). */
  workerConcurrency: number;
  /** R5: how long in-flight requests may take to finish after SIGTERM (OCC_SHUTDOWN_DEADLINE_SECONDS, 25). */
  shutdownDeadlineSeconds: number;
  /**
   * R6: the port of the /metrics listener (OCC_METRICS_PORT): 9464 in production, none in
   * development (so two local runs do not clash); `off` turns it off, 0 picks a free port.
   */
  metricsPort: number | null;
  /** OCC_METRICS_HOST, OCC_HOST by default. */
  metricsHost: string;
  /**
   * SC5: the SelfConfig admission webhook's serving certificate and key, PEM files
   * (OCC_WEBHOOK_TLS_CERT_FILE and OCC_WEBHOOK_TLS_KEY_FILE, both or neither; e.g. a cert-manager
   * Secret mounted in the pod). Without them the embedded setup makes its own and registers it;
   * against an external cluster no webhook is served, and the manifests' failurePolicy Fail then
   * refuses every in-cluster request.
   */
  webhookTls: { certFile: string; keyFile: string } | null;
  /**
   * SC5: OCC_WEBHOOK_SERVICE (namespace/name), the Service through which the API server calls the
   * webhook (deploy/ sets occ-system/occ-api): the product then makes and rotates its own CA and
   * serving certificate for it, kept in the Secret `<name>-webhook-tls` of that namespace, and
   * writes the CA into the ValidatingWebhookConfiguration OCC_WEBHOOK_CONFIGURATION
   * (openclaw-selfconfig). Not with OCC_WEBHOOK_TLS_*: one source of certificates.
   */
  webhookService: { namespace: string; name: string } | null;
  webhookConfiguration: string;
  /** OCC_WEBHOOK_HOST (0.0.0.0) and OCC_WEBHOOK_PORT (9443): where the webhook with configured or managed certificates listens. */
  webhookHost: string;
  webhookPort: number;
  /** W5: how long an activated gateway may take to become ready (OCC_GATEWAY_READY_SECONDS, 120). */
  gatewayReadySeconds: number;
  /** SC9: how long a finished OpenClawSelfConfig stays before deletion (OCC_SELFCONFIG_TTL_SECONDS, 3600). */
  selfConfigTtlSeconds: number;
  /** SG3: how long a SelfConfig request waits for approval before it ends Expired (OCC_SELFCONFIG_APPROVAL_TTL_SECONDS, 86400). */
  selfConfigApprovalTtlSeconds: number;
  /** SG1: how long an applied request waits for its gateway to be Ready when the instance sets no gate (OCC_SELFCONFIG_HEALTH_GATE_SECONDS, 300; 0 turns the gate off). */
  selfConfigHealthGateSeconds: number;
  /** V3: how long a secret version no revision holds stays after it was last delivered (OCC_SECRET_VERSION_RETENTION_SECONDS, 86400). */
  secretVersionRetentionSeconds: number;
  /** SG4: the installation's budget for an instance whose spec sets none. */
  selfConfigBudget: SelfConfigBudget;
  /**
   * P7: each principal's GraphQL budget, by kind: OCC_GRAPHQL_BUDGET_HUMAN and
   * OCC_GRAPHQL_BUDGET_SERVICE points (30,000 each, at least one document at the cost limit),
   * refilled over OCC_GRAPHQL_BUDGET_WINDOW_SECONDS (20), and OCC_GRAPHQL_CONCURRENCY_HUMAN and
   * OCC_GRAPHQL_CONCURRENCY_SERVICE requests in execution at once (8 each).
   */
  requestBudget: BudgetLimitsByKind;
  /**
   * R6: OpenTelemetry tracing goes to OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP, a base URL:
   * spans are posted to <endpoint>/v1/traces); unset, tracing is off. OTEL_SERVICE_NAME names the
   * service (openclaw-control-plane by default).
   */
  otlpEndpoint: string | null;
  serviceName: string;
  /** R6: OCC_TRACE_LEASES=true traces Lease polling too (leader election); off, its calls start no trace. */
  traceLeases: boolean;
}

/**
 * R1: every problem of the configuration, named by its variable, reported at once (a deployment
 * that is wrong in three ways should not take three restarts to learn it).
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`The configuration has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

// Each variable is a zod schema that turns its text into its value or fails with one sentence
// naming the variable; an unset or empty variable takes its default. The checks that read the file
// system or join several variables (the webhook's files, where a bootstrap key goes, what
// production requires) are functions below the schema.

/** An empty variable is an unset one: its default applies. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** A whole number from `min` to `max`; every way to miss that is the one `message`. */
function wholeNumber(message: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .transform(Number)
    .pipe(z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }));
}

const positive = (name: string) => wholeNumber(`${name} must be a positive integer`, 1);
const portNumber = (name: string) => wholeNumber(`${name} must be a port number from 0 to 65535`, 0, 65535);
const flag = (name: string) => z.enum(['true', '1', 'false', '0'], { error: `${name} must be true or false` }).transform((value) => value === 'true' || value === '1');

const KUBERNETES_NAMESPACED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/;
const namespacedName = (name: string) =>
  z
    .string()
    .regex(KUBERNETES_NAMESPACED_NAME, { error: `${name} must be namespace/name (Kubernetes names)` })
    .transform((value) => {
      const [namespace = '', objectName = ''] = value.split('/');
      return { namespace, name: objectName };
    });

/** A budget smaller than one document at the cost limit (P3) would refuse that document forever. */
const budgetPoints = (name: string) => positive(name).pipe(z.number().min(LIMITS.cost, { error: `${name} must be at least ${LIMITS.cost}, the cost limit of one document` }));

function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** Exact origins only (scheme, host and port; no path, no trailing slash, no wildcard): the Origin header is compared as a string. */
const origins = z.string().transform((value, ctx) => {
  if (value.trim() === '') return [];
  return value.split(',').map((raw) => {
    const origin = raw.trim();
    if (httpUrl(origin)?.origin !== origin) {
      ctx.addIssue({ code: 'custom', message: `OCC_ALLOWED_ORIGINS must be a comma-separated list of exact origins such as https://console.example.com; ${JSON.stringify(origin)} is not one` });
    }
    return origin;
  });
});

/** Not quoted in its problem: a collector URL may carry credentials. */
const otlpEndpoint = z
  .string()
  .transform((value) => value.trim())
  .refine((value) => value === '' || httpUrl(value) !== null, { error: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the OTLP/HTTP base, e.g. http://otel-collector:4318)' })
  .transform((value) => (value === '' ? null : httpUrl(value)!.toString()));

const METRICS_PORT_PROBLEM = 'OCC_METRICS_PORT must be a port number from 0 to 65535, or off';

/** The variables, in the order their problems are listed. */
const VARIABLES = z.object({
  OCC_HOST: optional(z.string()),
  OCC_PORT: optional(portNumber('OCC_PORT')),
  OCC_DATA_DIR: optional(z.string()),
  // Never quoted: the URL may hold a password.
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, { error: 'DATABASE_URL must be a postgresql:// URL' })),
  KUBECONFIG: optional(z.string()),
  OCC_CONSOLE_DIR: optional(z.string()),
  OCC_ALLOWED_ORIGINS: optional(origins),
  OCC_LOG_LEVEL: optional(z.enum(['debug', 'info', 'warn', 'error'], { error: 'OCC_LOG_LEVEL must be debug, info, warn or error' })),
  OCC_MIGRATE_AT_START: optional(flag('OCC_MIGRATE_AT_START')),
  OCC_AUTH_CACHE: optional(flag('OCC_AUTH_CACHE')),
  OCC_BOOTSTRAP_SECRET: optional(namespacedName('OCC_BOOTSTRAP_SECRET')),
  OCC_TENANT_SERVICE_ACCOUNT: optional(namespacedName('OCC_TENANT_SERVICE_ACCOUNT')),
  OCC_BOOTSTRAP_KEY_FILE: optional(z.string()),
  OCC_LEADER_NAMESPACE: optional(z.string()),
  OCC_LEADER_LEASE_SECONDS: optional(positive('OCC_LEADER_LEASE_SECONDS')),
  OCC_WORK_LEASE_SECONDS: optional(positive('OCC_WORK_LEASE_SECONDS')),
  OCC_WORKER_CONCURRENCY: optional(positive('OCC_WORKER_CONCURRENCY')),
  OCC_SHUTDOWN_DEADLINE_SECONDS: optional(positive('OCC_SHUTDOWN_DEADLINE_SECONDS')),
  OCC_METRICS_PORT: optional(z.union([z.literal('off').transform(() => null), wholeNumber(METRICS_PORT_PROBLEM, 0, 65535)], { error: METRICS_PORT_PROBLEM })),
  OCC_METRICS_HOST: optional(z.string()),
  OCC_WEBHOOK_SERVICE: optional(namespacedName('OCC_WEBHOOK_SERVICE')),
  OCC_WEBHOOK_CONFIGURATION: optional(z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, { error: 'OCC_WEBHOOK_CONFIGURATION must be a Kubernetes name' })),
  OCC_WEBHOOK_HOST: optional(z.string()),
  OCC_WEBHOOK_PORT: optional(portNumber('OCC_WEBHOOK_PORT')),
  OCC_GATEWAY_READY_SECONDS: optional(positive('OCC_GATEWAY_READY_SECONDS')),
  OCC_SELFCONFIG_TTL_SECONDS: optional(positive('OCC_SELFCONFIG_TTL_SECONDS')),
  OCC_SELFCONFIG_APPROVAL_TTL_SECONDS: optional(positive('OCC_SELFCONFIG_APPROVAL_TTL_SECONDS')),
  OCC_SELFCONFIG_HEALTH_GATE_SECONDS: optional(wholeNumber(`OCC_SELFCONFIG_HEALTH_GATE_SECONDS must be a whole number of seconds from 0 to ${MAX_HEALTH_GATE_SECONDS}`, 0, MAX_HEALTH_GATE_SECONDS)),
  OCC_SECRET_VERSION_RETENTION_SECONDS: optional(positive('OCC_SECRET_VERSION_RETENTION_SECONDS')),
  OCC_SELFCONFIG_REQUESTS_PER_HOUR: optional(positive('OCC_SELFCONFIG_REQUESTS_PER_HOUR')),
  OCC_SELFCONFIG_APPLIED_PER_DAY: optional(positive('OCC_SELFCONFIG_APPLIED_PER_DAY')),
  OCC_SELFCONFIG_PAUSE_AFTER_ROLLBACKS: optional(positive('OCC_SELFCONFIG_PAUSE_AFTER_ROLLBACKS')),
  OCC_GRAPHQL_BUDGET_WINDOW_SECONDS: optional(positive('OCC_GRAPHQL_BUDGET_WINDOW_SECONDS')),
  OCC_GRAPHQL_BUDGET_HUMAN: optional(budgetPoints('OCC_GRAPHQL_BUDGET_HUMAN')),
  OCC_GRAPHQL_CONCURRENCY_HUMAN: optional(positive('OCC_GRAPHQL_CONCURRENCY_HUMAN')),
  OCC_GRAPHQL_BUDGET_SERVICE: optional(budgetPoints('OCC_GRAPHQL_BUDGET_SERVICE')),
  OCC_GRAPHQL_CONCURRENCY_SERVICE: optional(positive('OCC_GRAPHQL_CONCURRENCY_SERVICE')),
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(otlpEndpoint),
  OTEL_SERVICE_NAME: optional(z.string()),
  OCC_TRACE_LEASES: optional(flag('OCC_TRACE_LEASES')),
});

/** Every variable readEnv reads through its schema (tests try bad values on each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(VARIABLES.shape);

/** The variables' values, or every problem (one per variable, the first its schema found). */
function parseVariables(source: NodeJS.ProcessEnv): { values: z.output<typeof VARIABLES> | null; problems: string[] } {
  const parsed = VARIABLES.safeParse(source);
  if (parsed.success) return { values: parsed.data, problems: [] };
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const issue of parsed.error.issues) {
    const variable = String(issue.path[0] ?? '');
    if (seen.has(variable)) continue;
    seen.add(variable);
    problems.push(issue.message);
  }
  return { values: null, problems };
}

/** SC5: both files or neither, each readable now rather than at the first admission review. */
function webhookTls(certFile: string | undefined, keyFile: string | undefined): Env['webhookTls'] {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new Error('OCC_WEBHOOK_TLS_CERT_FILE and OCC_WEBHOOK_TLS_KEY_FILE must be set together');
  const files = { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) };
  const unreadable = Object.entries({ OCC_WEBHOOK_TLS_CERT_FILE: files.certFile, OCC_WEBHOOK_TLS_KEY_FILE: files.keyFile }).filter(([, file]) => {
    try {
      accessSync(file, constants.R_OK);
      return false;
    } catch {
      return true;
    }
  });
  if (unreadable.length > 0) throw new Error(unreadable.map(([name, file]) => `${name} names a file that cannot be read: ${file}`).join('; '));
  return files;
}

/**
 * R3: where a bootstrap would put its key, checked before anything starts: a start on an empty
 * database bootstraps, and in production it may not print the key, so every start that could be
 * that one needs somewhere to write it (the Secret wins when both are set, bootstrap-key-delivery.ts).
 * An existing key file is fine: an earlier start wrote it.
 */
function bootstrapDestinationProblem(production: boolean, secretGiven: boolean, keyFile: string | null): string | null {
  if (secretGiven) return null; // a malformed one is OCC_BOOTSTRAP_SECRET's own problem
  if (!keyFile) {
    return production
      ? 'OCC_BOOTSTRAP_SECRET or OCC_BOOTSTRAP_KEY_FILE must be set in production: the bootstrap API key is never printed there, so the start that bootstraps needs a Kubernetes Secret (namespace/name) or a file to write it to'
      : null;
  }
  const folder = path.dirname(keyFile);
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    return `OCC_BOOTSTRAP_KEY_FILE names a file in a folder that does not exist: ${folder}`;
  }
  if (!isFolder) return `OCC_BOOTSTRAP_KEY_FILE names a file in ${folder}, which is not a folder`;
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch {
    return `OCC_BOOTSTRAP_KEY_FILE names a file in a folder this process cannot write to: ${folder}`;
  }
  try {
    if (statSync(keyFile).isDirectory()) return `OCC_BOOTSTRAP_KEY_FILE names a folder, not a file: ${keyFile}`;
  } catch {
    // not there yet: the start that bootstraps creates it
  }
  return null;
}

/**
 * Reads and checks the whole configuration (R1). Development falls back to the embedded database
 * and cluster; production has no embedded fallback: it needs DATABASE_URL, KUBECONFIG or a pod's
 * in-cluster service account, and a place for the bootstrap key (R3), or it does not start.
 * `needs.bootstrap` (by default as `needs.kubernetes`: the migration step needs neither) is whether
 * this process may bootstrap the installation. Every problem is listed at once.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env, needs: { kubernetes: boolean; bootstrap?: boolean } = { kubernetes: true }): Env {
  const problems: string[] = [];
  const production = source.NODE_ENV === 'production';
  const kubeconfig = source.KUBECONFIG || null;
  const inCluster = production && !kubeconfig && Boolean(source.KUBERNETES_SERVICE_HOST && source.KUBERNETES_SERVICE_PORT);
  if (production && !source.DATABASE_URL) problems.push('DATABASE_URL must be set in production (there is no embedded PostgreSQL there)');
  if (production && needs.kubernetes && !kubeconfig && !inCluster) {
    problems.push('KUBECONFIG must be set in production, unless the process runs in a pod with a service account (KUBERNETES_SERVICE_HOST); there is no embedded Kubernetes there');
  }
  const bootstrapKeyFile = source.OCC_BOOTSTRAP_KEY_FILE ? path.resolve(source.OCC_BOOTSTRAP_KEY_FILE) : null;
  const destination = (needs.bootstrap ?? needs.kubernetes) ? bootstrapDestinationProblem(production, Boolean(source.OCC_BOOTSTRAP_SECRET), bootstrapKeyFile) : null;
  if (destination) problems.push(destination);
  let tls: Env['webhookTls'] = null;
  try {
    tls = webhookTls(source.OCC_WEBHOOK_TLS_CERT_FILE, source.OCC_WEBHOOK_TLS_KEY_FILE);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (source.OCC_WEBHOOK_SERVICE && (source.OCC_WEBHOOK_TLS_CERT_FILE || source.OCC_WEBHOOK_TLS_KEY_FILE)) {
    problems.push('OCC_WEBHOOK_SERVICE (certificates the product makes) and OCC_WEBHOOK_TLS_CERT_FILE/KEY_FILE (certificates from files) cannot both be set');
  }
  const { values: v, problems: invalid } = parseVariables(source);
  problems.push(...invalid);
  if (!v || problems.length > 0) throw new ConfigError(problems);
  const budget = DEFAULT_BUDGET_LIMITS;
  const windowSeconds = v.OCC_GRAPHQL_BUDGET_WINDOW_SECONDS ?? budget.HUMAN.windowSeconds;
  return {
    host: v.OCC_HOST ?? '127.0.0.1',
    port: v.OCC_PORT ?? 4000,
    dataDir: path.resolve(v.OCC_DATA_DIR ?? path.join(REPO_ROOT, '.data')),
    databaseUrl: v.DATABASE_URL ?? null,
    kubeconfig,
    inCluster,
    consoleDir: path.resolve(v.OCC_CONSOLE_DIR ?? path.join(REPO_ROOT, 'apps/console/out')),
    production,
    allowedOrigins: v.OCC_ALLOWED_ORIGINS ?? [],
    logLevel: v.OCC_LOG_LEVEL ?? 'info',
    migrateAtStart: v.OCC_MIGRATE_AT_START ?? !production,
    authCache: v.OCC_AUTH_CACHE ?? true,
    bootstrapSecret: v.OCC_BOOTSTRAP_SECRET ?? null,
    tenantServiceAccount: v.OCC_TENANT_SERVICE_ACCOUNT ?? null,
    bootstrapKeyFile,
    leaderNamespace: v.OCC_LEADER_NAMESPACE ?? 'default',
    leaderLeaseSeconds: v.OCC_LEADER_LEASE_SECONDS ?? 15,
    workLeaseSeconds: v.OCC_WORK_LEASE_SECONDS ?? 30,
    workerConcurrency: v.OCC_WORKER_CONCURRENCY ?? 4,
    shutdownDeadlineSeconds: v.OCC_SHUTDOWN_DEADLINE_SECONDS ?? 25,
    metricsPort: v.OCC_METRICS_PORT === undefined ? (production ? 9464 : null) : v.OCC_METRICS_PORT,
    metricsHost: v.OCC_METRICS_HOST ?? v.OCC_HOST ?? '127.0.0.1',
    webhookTls: tls,
    webhookService: v.OCC_WEBHOOK_SERVICE ?? null,
    webhookConfiguration: v.OCC_WEBHOOK_CONFIGURATION ?? 'openclaw-selfconfig',
    webhookHost: v.OCC_WEBHOOK_HOST ?? '0.0.0.0',
    webhookPort: v.OCC_WEBHOOK_PORT ?? 9443,
    gatewayReadySeconds: v.OCC_GATEWAY_READY_SECONDS ?? 120,
    selfConfigTtlSeconds: v.OCC_SELFCONFIG_TTL_SECONDS ?? 3600,
    selfConfigApprovalTtlSeconds: v.OCC_SELFCONFIG_APPROVAL_TTL_SECONDS ?? DEFAULT_APPROVAL_TTL_SECONDS,
    selfConfigHealthGateSeconds: v.OCC_SELFCONFIG_HEALTH_GATE_SECONDS ?? DEFAULT_HEALTH_GATE_SECONDS,
    secretVersionRetentionSeconds: v.OCC_SECRET_VERSION_RETENTION_SECONDS ?? 86400,
    selfConfigBudget: {
      requestsPerHour: v.OCC_SELFCONFIG_REQUESTS_PER_HOUR ?? DEFAULT_SELF_CONFIG_BUDGET.requestsPerHour,
      appliedPerDay: v.OCC_SELFCONFIG_APPLIED_PER_DAY ?? DEFAULT_SELF_CONFIG_BUDGET.appliedPerDay,
      pauseAfterRollbacks: v.OCC_SELFCONFIG_PAUSE_AFTER_ROLLBACKS ?? DEFAULT_SELF_CONFIG_BUDGET.pauseAfterRollbacks,
    },
    requestBudget: {
      HUMAN: { points: v.OCC_GRAPHQL_BUDGET_HUMAN ?? budget.HUMAN.points, windowSeconds, concurrency: v.OCC_GRAPHQL_CONCURRENCY_HUMAN ?? budget.HUMAN.concurrency },
      SERVICE: { points: v.OCC_GRAPHQL_BUDGET_SERVICE ?? budget.SERVICE.points, windowSeconds, concurrency: v.OCC_GRAPHQL_CONCURRENCY_SERVICE ?? budget.SERVICE.concurrency },
    },
    otlpEndpoint: v.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    serviceName: v.OTEL_SERVICE_NAME?.trim() || 'openclaw-control-plane',
    traceLeases: v.OCC_TRACE_LEASES ?? false,
  };
}

/** Q1: what `npm run first-agent` reads from its environment (and nothing else does). */
export interface FirstAgentEnv {
  dataDir: string;
  /** OPENCLAW_FIRST_AGENT_MODEL: a plain model id, or null for the recorded or default one. */
  modelOverride: string | null;
  /** OCC_BOOTSTRAP_KEY: the bootstrap API key `npm start` printed, or null to ask for it. */
  bootstrapKey: string | null;
  /** The model key under its provider's env name (OPENAI_API_KEY …), or null to ask for it. */
  modelKey(envName: string): string | null;
}

export function readFirstAgentEnv(source: NodeJS.ProcessEnv = process.env): FirstAgentEnv {
  return {
    dataDir: path.resolve(source.OCC_DATA_DIR || path.join(REPO_ROOT, '.data')),
    modelOverride: source.OPENCLAW_FIRST_AGENT_MODEL?.trim() || null,
    bootstrapKey: source.OCC_BOOTSTRAP_KEY || null,
    modelKey: (envName) => source[envName] || null,
  };
}
