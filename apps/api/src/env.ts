import { DEFAULT_HEALTH_GATE_SECONDS, MAX_HEALTH_GATE_SECONDS } from '@occ/domain/selfconfig-health';
import { DEFAULT_APPROVAL_TTL_SECONDS } from '@occ/domain/selfconfig-approval';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SELF_CONFIG_BUDGET, type SelfConfigBudget } from '@occ/domain/selfconfig-budget';
import { fileURLToPath } from 'node:url';
import { LIMITS } from './graphql/limits.ts';
import { DEFAULT_BUDGET_LIMITS, type BudgetLimitsByKind } from './graphql/principal-budget.ts';

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
  /** OCC_WEBHOOK_HOST (0.0.0.0) and OCC_WEBHOOK_PORT (9443): where the webhook with configured files listens. */
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

/** Runs one variable's parser; a problem is recorded and the fallback used, so parsing goes on. */
function field<T>(problems: string[], fallback: T, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    problems.push((error as Error).message);
    return fallback;
  }
}

function secondsUpTo(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number of seconds from 0 to ${max}`);
  return n;
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
  return n;
}

/** A budget smaller than one document at the cost limit (P3) would refuse that document forever. */
function budgetPoints(name: string, value: string | undefined, fallback: number): number {
  const n = positiveInt(name, value, fallback);
  if (n < LIMITS.cost) throw new Error(`${name} must be at least ${LIMITS.cost}, the cost limit of one document`);
  return n;
}

function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false`);
}

function namespacedName(variable: string, value: string | undefined): { namespace: string; name: string } | null {
  if (value === undefined || value === '') return null;
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  if (!match) throw new Error(`${variable} must be namespace/name (Kubernetes names)`);
  return { namespace: match[1]!, name: match[3]! };
}

function port(value: string | undefined, fallback: number, name = 'OCC_PORT'): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number from 0 to 65535`);
  return n;
}

function metricsPort(value: string | undefined, production: boolean): number | null {
  if (value === 'off') return null;
  if (value === undefined || value === '') return production ? 9464 : null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error('OCC_METRICS_PORT must be a port number from 0 to 65535, or off');
  return n;
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

function logLevel(value: string | undefined): Env['logLevel'] {
  const level = value || 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new Error('OCC_LOG_LEVEL must be debug, info, warn or error');
  return level as Env['logLevel'];
}

function otlpEndpoint(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(value.trim());
  } catch {
    // reported below
  }
  // Not quoted: a collector URL may carry credentials.
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (the OTLP/HTTP base, e.g. http://otel-collector:4318)');
  }
  return url.toString();
}

function origins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((raw) => {
    const origin = raw.trim();
    let exact: string | null = null;
    try {
      const url = new URL(origin);
      if (url.protocol === 'http:' || url.protocol === 'https:') exact = url.origin;
    } catch {
      // reported below
    }
    // Exact origins only (scheme, host and port; no path, no trailing slash, no wildcard), since
    // the Origin header is compared as a string.
    if (exact !== origin) {
      throw new Error(
        `OCC_ALLOWED_ORIGINS must be a comma-separated list of exact origins such as https://console.example.com; ${JSON.stringify(origin)} is not one`,
      );
    }
    return origin;
  });
}

function requestBudget(problems: string[], source: NodeJS.ProcessEnv): BudgetLimitsByKind {
  const defaults = DEFAULT_BUDGET_LIMITS;
  const windowSeconds = field(problems, defaults.HUMAN.windowSeconds, () =>
    positiveInt('OCC_GRAPHQL_BUDGET_WINDOW_SECONDS', source.OCC_GRAPHQL_BUDGET_WINDOW_SECONDS, defaults.HUMAN.windowSeconds),
  );
  const kind = (name: 'HUMAN' | 'SERVICE') => ({
    points: field(problems, defaults[name].points, () => budgetPoints(`OCC_GRAPHQL_BUDGET_${name}`, source[`OCC_GRAPHQL_BUDGET_${name}`], defaults[name].points)),
    windowSeconds,
    concurrency: field(problems, defaults[name].concurrency, () =>
      positiveInt(`OCC_GRAPHQL_CONCURRENCY_${name}`, source[`OCC_GRAPHQL_CONCURRENCY_${name}`], defaults[name].concurrency),
    ),
  });
  return { HUMAN: kind('HUMAN'), SERVICE: kind('SERVICE') };
}

/**
 * Reads and checks the whole configuration (R1). Development falls back to the embedded database
 * and cluster; production has no embedded fallback: it needs DATABASE_URL, KUBECONFIG or a pod's
 * in-cluster service account, and a place for the bootstrap key (R3), or it does not start.
 * `needs.bootstrap` (by default as `needs.kubernetes`: the migration step needs neither) is whether
 * this process may bootstrap the installation.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env, needs: { kubernetes: boolean; bootstrap?: boolean } = { kubernetes: true }): Env {
  const problems: string[] = [];
  const production = source.NODE_ENV === 'production';
  const databaseUrl = source.DATABASE_URL || null;
  const kubeconfig = source.KUBECONFIG || null;
  const inCluster = production && !kubeconfig && Boolean(source.KUBERNETES_SERVICE_HOST && source.KUBERNETES_SERVICE_PORT);
  if (production && !databaseUrl) problems.push('DATABASE_URL must be set in production (there is no embedded PostgreSQL there)');
  if (production && needs.kubernetes && !kubeconfig && !inCluster) {
    problems.push('KUBECONFIG must be set in production, unless the process runs in a pod with a service account (KUBERNETES_SERVICE_HOST); there is no embedded Kubernetes there');
  }
  // Never quoted: the URL may hold a password.
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) problems.push('DATABASE_URL must be a postgresql:// URL');
  const bootstrapKeyFile = source.OCC_BOOTSTRAP_KEY_FILE ? path.resolve(source.OCC_BOOTSTRAP_KEY_FILE) : null;
  const destination = (needs.bootstrap ?? needs.kubernetes) ? bootstrapDestinationProblem(production, Boolean(source.OCC_BOOTSTRAP_SECRET), bootstrapKeyFile) : null;
  if (destination) problems.push(destination);
  const env: Env = {
    host: source.OCC_HOST || '127.0.0.1',
    port: field(problems, 4000, () => port(source.OCC_PORT, 4000)),
    dataDir: path.resolve(source.OCC_DATA_DIR || path.join(REPO_ROOT, '.data')),
    databaseUrl,
    kubeconfig,
    inCluster,
    consoleDir: path.resolve(source.OCC_CONSOLE_DIR || path.join(REPO_ROOT, 'apps/console/out')),
    production,
    allowedOrigins: field(problems, [], () => origins(source.OCC_ALLOWED_ORIGINS)),
    logLevel: field(problems, 'info', () => logLevel(source.OCC_LOG_LEVEL)),
    migrateAtStart: field(problems, !production, () => bool('OCC_MIGRATE_AT_START', source.OCC_MIGRATE_AT_START, !production)),
    authCache: field(problems, true, () => bool('OCC_AUTH_CACHE', source.OCC_AUTH_CACHE, true)),
    bootstrapSecret: field(problems, null, () => namespacedName('OCC_BOOTSTRAP_SECRET', source.OCC_BOOTSTRAP_SECRET)),
    tenantServiceAccount: field(problems, null, () => namespacedName('OCC_TENANT_SERVICE_ACCOUNT', source.OCC_TENANT_SERVICE_ACCOUNT)),
    bootstrapKeyFile,
    leaderNamespace: source.OCC_LEADER_NAMESPACE || 'default',
    leaderLeaseSeconds: field(problems, 15, () => positiveInt('OCC_LEADER_LEASE_SECONDS', source.OCC_LEADER_LEASE_SECONDS, 15)),
    workLeaseSeconds: field(problems, 30, () => positiveInt('OCC_WORK_LEASE_SECONDS', source.OCC_WORK_LEASE_SECONDS, 30)),
    workerConcurrency: field(problems, 4, () => positiveInt('OCC_WORKER_CONCURRENCY', source.OCC_WORKER_CONCURRENCY, 4)),
    shutdownDeadlineSeconds: field(problems, 25, () => positiveInt('OCC_SHUTDOWN_DEADLINE_SECONDS', source.OCC_SHUTDOWN_DEADLINE_SECONDS, 25)),
    metricsPort: field(problems, null, () => metricsPort(source.OCC_METRICS_PORT, production)),
    metricsHost: source.OCC_METRICS_HOST || source.OCC_HOST || '127.0.0.1',
    webhookTls: field(problems, null, () => webhookTls(source.OCC_WEBHOOK_TLS_CERT_FILE, source.OCC_WEBHOOK_TLS_KEY_FILE)),
    webhookHost: source.OCC_WEBHOOK_HOST || '0.0.0.0',
    webhookPort: field(problems, 9443, () => port(source.OCC_WEBHOOK_PORT, 9443, 'OCC_WEBHOOK_PORT')),
    gatewayReadySeconds: field(problems, 120, () => positiveInt('OCC_GATEWAY_READY_SECONDS', source.OCC_GATEWAY_READY_SECONDS, 120)),
    selfConfigTtlSeconds: field(problems, 3600, () => positiveInt('OCC_SELFCONFIG_TTL_SECONDS', source.OCC_SELFCONFIG_TTL_SECONDS, 3600)),
    selfConfigApprovalTtlSeconds: field(problems, DEFAULT_APPROVAL_TTL_SECONDS, () =>
      positiveInt('OCC_SELFCONFIG_APPROVAL_TTL_SECONDS', source.OCC_SELFCONFIG_APPROVAL_TTL_SECONDS, DEFAULT_APPROVAL_TTL_SECONDS),
    ),
    selfConfigHealthGateSeconds: field(problems, DEFAULT_HEALTH_GATE_SECONDS, () =>
      secondsUpTo('OCC_SELFCONFIG_HEALTH_GATE_SECONDS', source.OCC_SELFCONFIG_HEALTH_GATE_SECONDS, DEFAULT_HEALTH_GATE_SECONDS, MAX_HEALTH_GATE_SECONDS),
    ),
    secretVersionRetentionSeconds: field(problems, 86400, () => positiveInt('OCC_SECRET_VERSION_RETENTION_SECONDS', source.OCC_SECRET_VERSION_RETENTION_SECONDS, 86400)),
    selfConfigBudget: {
      requestsPerHour: field(problems, DEFAULT_SELF_CONFIG_BUDGET.requestsPerHour, () => positiveInt('OCC_SELFCONFIG_REQUESTS_PER_HOUR', source.OCC_SELFCONFIG_REQUESTS_PER_HOUR, DEFAULT_SELF_CONFIG_BUDGET.requestsPerHour)),
      appliedPerDay: field(problems, DEFAULT_SELF_CONFIG_BUDGET.appliedPerDay, () => positiveInt('OCC_SELFCONFIG_APPLIED_PER_DAY', source.OCC_SELFCONFIG_APPLIED_PER_DAY, DEFAULT_SELF_CONFIG_BUDGET.appliedPerDay)),
      pauseAfterRollbacks: field(problems, DEFAULT_SELF_CONFIG_BUDGET.pauseAfterRollbacks, () => positiveInt('OCC_SELFCONFIG_PAUSE_AFTER_ROLLBACKS', source.OCC_SELFCONFIG_PAUSE_AFTER_ROLLBACKS, DEFAULT_SELF_CONFIG_BUDGET.pauseAfterRollbacks)),
    },
    requestBudget: requestBudget(problems, source),
    otlpEndpoint: field(problems, null, () => otlpEndpoint(source.OTEL_EXPORTER_OTLP_ENDPOINT)),
    serviceName: source.OTEL_SERVICE_NAME?.trim() || 'openclaw-control-plane',
    traceLeases: field(problems, false, () => bool('OCC_TRACE_LEASES', source.OCC_TRACE_LEASES, false)),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return env;
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
