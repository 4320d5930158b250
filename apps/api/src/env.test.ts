import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, readEnv, REPO_ROOT } from './env.ts';

// R1: the configuration is checked as a whole at start, and production fails closed.

function problemsOf(source: NodeJS.ProcessEnv, needs?: { kubernetes: boolean }): string[] {
  try {
    readEnv(source, needs);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
}

describe('configuration (R1)', () => {
  it('R1 every problem is named by its variable, all at once', () => {
    const problems = problemsOf({ OCC_PORT: 'x', OCC_LOG_LEVEL: 'loud', OCC_LEADER_LEASE_SECONDS: '0', OCC_ALLOWED_ORIGINS: 'nope', OCC_MIGRATE_AT_START: 'perhaps', OCC_AUTH_CACHE: 'sometimes', OCC_BOOTSTRAP_SECRET: 'Not/Valid', OCC_TENANT_SERVICE_ACCOUNT: 'occ-api', DATABASE_URL: 'mysql://x', OCC_METRICS_PORT: '70000', OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://user:hunter2@collector' });
    const variables = ['OCC_PORT', 'OCC_LOG_LEVEL', 'OCC_LEADER_LEASE_SECONDS', 'OCC_ALLOWED_ORIGINS', 'OCC_MIGRATE_AT_START', 'OCC_AUTH_CACHE', 'OCC_BOOTSTRAP_SECRET', 'OCC_TENANT_SERVICE_ACCOUNT', 'DATABASE_URL', 'OCC_METRICS_PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT'];
    for (const variable of variables) expect(problems.filter((p) => p.startsWith(variable)), variable).toHaveLength(1);
    expect(problems).toHaveLength(variables.length);
    // A collector URL may carry credentials: never quoted back.
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('R1 every variable, given each of a set of malformed values, is either free text or refused by exactly one problem that starts with its name', () => {
    const FREE_TEXT = ['OCC_HOST', 'OCC_DATA_DIR', 'KUBECONFIG', 'OCC_CONSOLE_DIR', 'OCC_LEADER_NAMESPACE', 'OCC_METRICS_HOST', 'OCC_WEBHOOK_HOST', 'OTEL_SERVICE_NAME'];
    const MALFORMED = ['x', '-1', '1.5', '99999999999', 'http://', 'Not/Valid/x', ' ', 'true1', '0x10'];
    const refusedSomewhere = new Set<string>();
    for (const variable of CONFIG_VARIABLES) {
      for (const value of MALFORMED) {
        const problems = problemsOf({ [variable]: value });
        if (problems.length === 0) continue;
        refusedSomewhere.add(variable);
        expect({ variable, value, problems }).toEqual({ variable, value, problems: [expect.stringMatching(new RegExp(`^${variable}\\b`))] });
      }
    }
    // The schema's constrained variables each refuse one of those values; free text refuses none.
    expect(CONFIG_VARIABLES.filter((v) => !refusedSomewhere.has(v)).sort()).toEqual([...FREE_TEXT].sort());
  });

  it('A2 the authentication cache is on unless OCC_AUTH_CACHE=false', () => {
    expect(readEnv({}).authCache).toBe(true);
    expect(readEnv({ OCC_AUTH_CACHE: 'false' }).authCache).toBe(false);
    expect(readEnv({ OCC_AUTH_CACHE: 'true' }).authCache).toBe(true);
  });

  it('K1 OCC_TENANT_SERVICE_ACCOUNT names the service account each provisioned namespace binds occ-tenant to; unset binds none', () => {
    expect(readEnv({ OCC_TENANT_SERVICE_ACCOUNT: 'occ-system/occ-api' }).tenantServiceAccount).toEqual({ namespace: 'occ-system', name: 'occ-api' });
    expect(readEnv({}).tenantServiceAccount).toBeNull();
  });

  it('R6 /metrics listens on 9464 in production and not at all in development, unless OCC_METRICS_PORT says otherwise', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/occ', KUBECONFIG: '/k', OCC_BOOTSTRAP_SECRET: 'occ-system/occ-bootstrap-key' };
    expect(readEnv(production)).toMatchObject({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(readEnv({ ...production, OCC_METRICS_PORT: 'off' }).metricsPort).toBeNull();
    expect(readEnv({ ...production, OCC_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
    expect(readEnv({}).metricsPort).toBeNull();
    expect(readEnv({ OCC_METRICS_PORT: '0', OCC_METRICS_HOST: '::1' })).toMatchObject({ metricsPort: 0, metricsHost: '::1' });
  });

  it('R6 tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; OTEL_SERVICE_NAME names the service', () => {
    expect(readEnv({})).toMatchObject({ otlpEndpoint: null, serviceName: 'openclaw-control-plane' });
    expect(readEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).otlpEndpoint).toBeNull();
    expect(readEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'occ-eu' })).toMatchObject({ otlpEndpoint: 'http://collector:4318/', serviceName: 'occ-eu' });
  });

  it('SC5 R1 the webhook certificate files come together, readable, with a valid port; none means the embedded setup makes its own', () => {
    expect(readEnv({})).toMatchObject({ webhookTls: null, webhookHost: '0.0.0.0', webhookPort: 9443 });
    const here = path.join(REPO_ROOT, 'package.json');
    expect(readEnv({ OCC_WEBHOOK_TLS_CERT_FILE: here, OCC_WEBHOOK_TLS_KEY_FILE: here, OCC_WEBHOOK_PORT: '8443' })).toMatchObject({
      webhookTls: { certFile: here, keyFile: here },
      webhookPort: 8443,
    });
    expect(problemsOf({ OCC_WEBHOOK_TLS_CERT_FILE: here })).toEqual(['OCC_WEBHOOK_TLS_CERT_FILE and OCC_WEBHOOK_TLS_KEY_FILE must be set together']);
    const problems = problemsOf({ OCC_WEBHOOK_TLS_CERT_FILE: '/nonexistent/tls.crt', OCC_WEBHOOK_TLS_KEY_FILE: here, OCC_WEBHOOK_PORT: '70000' });
    expect(problems).toEqual([
      'OCC_WEBHOOK_TLS_CERT_FILE names a file that cannot be read: /nonexistent/tls.crt',
      'OCC_WEBHOOK_PORT must be a port number from 0 to 65535',
    ]);
  });

  it('SC5 R1 OCC_WEBHOOK_SERVICE names the Service the product makes its webhook certificate for; not with certificate files; a bad name or configuration is a named problem', () => {
    expect(readEnv({})).toMatchObject({ webhookService: null, webhookConfiguration: 'openclaw-selfconfig' });
    expect(readEnv({ OCC_WEBHOOK_SERVICE: 'occ-system/occ-api', OCC_WEBHOOK_CONFIGURATION: 'other-hooks' })).toMatchObject({
      webhookService: { namespace: 'occ-system', name: 'occ-api' },
      webhookConfiguration: 'other-hooks',
      webhookTls: null,
    });
    const here = path.join(REPO_ROOT, 'package.json');
    expect(problemsOf({ OCC_WEBHOOK_SERVICE: 'occ-system/occ-api', OCC_WEBHOOK_TLS_CERT_FILE: here, OCC_WEBHOOK_TLS_KEY_FILE: here })).toEqual([
      'OCC_WEBHOOK_SERVICE (certificates the product makes) and OCC_WEBHOOK_TLS_CERT_FILE/KEY_FILE (certificates from files) cannot both be set',
    ]);
    expect(problemsOf({ OCC_WEBHOOK_SERVICE: 'occ-api', OCC_WEBHOOK_CONFIGURATION: 'Not A Name' })).toEqual([
      'OCC_WEBHOOK_SERVICE must be namespace/name (Kubernetes names)',
      'OCC_WEBHOOK_CONFIGURATION must be a Kubernetes name',
    ]);
  });

  it('P7 R1 the GraphQL budget is configured per principal kind; a budget below one document at the cost limit is a named problem', () => {
    expect(readEnv({}).requestBudget).toEqual({
      HUMAN: { points: 30_000, windowSeconds: 20, concurrency: 8 },
      SERVICE: { points: 30_000, windowSeconds: 20, concurrency: 8 },
    });
    const configured = { OCC_GRAPHQL_BUDGET_HUMAN: '50000', OCC_GRAPHQL_BUDGET_SERVICE: '20000', OCC_GRAPHQL_BUDGET_WINDOW_SECONDS: '3600', OCC_GRAPHQL_CONCURRENCY_HUMAN: '6', OCC_GRAPHQL_CONCURRENCY_SERVICE: '2' };
    expect(readEnv(configured).requestBudget).toEqual({
      HUMAN: { points: 50_000, windowSeconds: 3600, concurrency: 6 },
      SERVICE: { points: 20_000, windowSeconds: 3600, concurrency: 2 },
    });
    expect(problemsOf({ OCC_GRAPHQL_BUDGET_HUMAN: '9999', OCC_GRAPHQL_BUDGET_SERVICE: 'lots', OCC_GRAPHQL_BUDGET_WINDOW_SECONDS: '0', OCC_GRAPHQL_CONCURRENCY_HUMAN: '-1', OCC_GRAPHQL_CONCURRENCY_SERVICE: '1.5' })).toEqual([
      'OCC_GRAPHQL_BUDGET_WINDOW_SECONDS must be a positive integer',
      'OCC_GRAPHQL_BUDGET_HUMAN must be at least 10000, the cost limit of one document',
      'OCC_GRAPHQL_CONCURRENCY_HUMAN must be a positive integer',
      'OCC_GRAPHQL_BUDGET_SERVICE must be a positive integer',
      'OCC_GRAPHQL_CONCURRENCY_SERVICE must be a positive integer',
    ]);
  });

  it('R1 development falls back to the embedded database and cluster; production does not', () => {
    expect(readEnv({})).toMatchObject({ production: false, databaseUrl: null, kubeconfig: null, inCluster: false });
    expect(problemsOf({ NODE_ENV: 'production' }).map((p) => p.split(' ')[0])).toEqual(['DATABASE_URL', 'KUBECONFIG', 'OCC_BOOTSTRAP_SECRET']);
    const db = 'postgresql://u:secret-password@db:5432/occ';
    const key = { OCC_BOOTSTRAP_SECRET: 'occ-system/occ-bootstrap-key' };
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: db, ...key }).map((p) => p.split(' ')[0])).toEqual(['KUBECONFIG']);
    expect(readEnv({ NODE_ENV: 'production', DATABASE_URL: db, KUBECONFIG: '/etc/kube/config', ...key })).toMatchObject({ inCluster: false, kubeconfig: '/etc/kube/config' });
    expect(readEnv({ NODE_ENV: 'production', DATABASE_URL: db, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', ...key })).toMatchObject({ inCluster: true });
    // The migration step needs no cluster.
    expect(readEnv({ NODE_ENV: 'production', DATABASE_URL: db }, { kubernetes: false }).databaseUrl).toBe(db);
  });

  it('R1 a DATABASE_URL is never quoted in a problem (it may hold a password)', () => {
    const problems = problemsOf({ DATABASE_URL: 'mysql://user:hunter2-secret@x/db' });
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('R1 R3 `npm start` in production without DATABASE_URL, a cluster or a bootstrap key destination lists all of them and exits 2, creating nothing', () => {
    const dataDir = path.join('/tmp', `occ-r1-${process.pid}-${Date.now()}`);
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'apps/api/src/cli/start.ts')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', OCC_DATA_DIR: dataDir, OCC_PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/4 problems/);
    for (const variable of ['DATABASE_URL', 'KUBECONFIG', 'OCC_PORT', 'OCC_BOOTSTRAP_SECRET or OCC_BOOTSTRAP_KEY_FILE']) expect(result.stderr).toContain(variable);
    expect(spawnSync('test', ['-e', dataDir]).status).not.toBe(0);
  });
});
