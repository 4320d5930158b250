// Everything Prisma 6.19's migration tooling needs to run offline lives here (DESIGN.md §3).
//
// - engine "js" + a driver adapter: migrations run on Prisma's Wasm schema engine through
//   node-postgres, so no native schema engine is downloaded (Prisma 7's CLI downloads one at run
//   time; do not upgrade until that changes).
// - prisma/orm#27403: @prisma/adapter-pg cannot map the Postgres `name` (oid 19) and `char`
//   (oid 18) column types that the schema engine's catalog queries return, and `migrate deploy`
//   fails. The pool below reports both as `text` (oid 25); their text encodings are identical.
// - The connection is given as host, port, user and database (not a connection string) so that
//   adapter-pg's shadow database (`{...config, database}`) really is another database.
// - adapter-pg's own shadow database is dropped while its pool still holds a connection, so
//   `migrate dev` fails with "database ... is being accessed by other users": the factory below
//   ends the shadow pool first, then drops the database.
// - DATABASE_URL gets a default (prisma.config.ts), else `prisma generate` falls back to
//   downloading an engine.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

const NAME_OID = 19;
const CHAR_OID = 18;
const TEXT_OID = 25;

type QueryResult = { fields?: Array<{ dataTypeID: number }> };

class CatalogTextPool extends pg.Pool {
  // pg's query() has many overloads; this wrapper only rewrites the result's field types.
  override query(...args: unknown[]): never {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result && typeof (result as Promise<QueryResult>).then === 'function') {
      return (result as Promise<QueryResult>).then((res) => {
        for (const field of res.fields ?? []) {
          if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
        }
        return res;
      }) as never;
    }
    return result as never;
  }
}

export function poolConfigFromUrl(url: string): pg.PoolConfig {
  const u = new URL(url);
  return {
    // `?host=/folder` names a Unix socket's folder, as libpq and node-postgres read it (the
    // embedded database listens only there, P8).
    host: u.searchParams.get('host') ?? decodeURIComponent(u.hostname),
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '') || 'postgres'),
    max: 2,
  };
}

async function adminQuery(config: pg.PoolConfig, sql: string): Promise<void> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function connect(config: pg.PoolConfig) {
  return new PrismaPg(new CatalogTextPool(config), { disposeExternalPool: true }).connect();
}

export function migrationAdapter(url: string) {
  const config = poolConfigFromUrl(url);
  return {
    provider: 'postgres' as const,
    adapterName: '@prisma/adapter-pg',
    connect: () => connect(config),
    async connectToShadowDb() {
      const database = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
      await adminQuery(config, `CREATE DATABASE "${database}"`);
      const adapter = await connect({ ...config, database });
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await adminQuery(config, `DROP DATABASE IF EXISTS "${database}"`);
      };
      return adapter;
    },
  };
}
