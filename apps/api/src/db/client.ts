import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface DbOptions {
  poolSize?: number;
  /** Called once per SQL statement with its parameters as JSON (tests count and EXPLAIN them). */
  onQuery?: (sql: string, params: string) => void;
}

type Query = { sql: string };
type Transaction = {
  executeRaw(q: Query): Promise<number>;
  queryRaw(q: Query): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
};
type Adapter = { startTransaction(level?: unknown): Promise<Transaction> };

/**
 * Prisma 6.19's client sends COMMIT through the transaction and only then tells the adapter to
 * release its connection; when the COMMIT itself fails (a deferred constraint, a lost
 * connection), the release never comes and the pool loses that connection for good. This
 * releases it as soon as COMMIT or ROLLBACK fails, once.
 */
function releasingOnFailedEnd(factory: PrismaPg): PrismaPg {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const start = (adapter as unknown as Adapter).startTransaction.bind(adapter);
    (adapter as unknown as Adapter).startTransaction = async (level) => {
      const tx = await start(level);
      let released = false;
      const once = (fn: () => Promise<void>) => async () => {
        if (released) return;
        released = true;
        await fn();
      };
      const rollback = once(tx.rollback.bind(tx));
      tx.commit = once(tx.commit.bind(tx));
      tx.rollback = rollback;
      for (const method of ['executeRaw', 'queryRaw'] as const) {
        const run = (tx[method] as (q: Query) => Promise<never>).bind(tx);
        (tx[method] as (q: Query) => Promise<unknown>) = async (q: Query) => {
          try {
            return await run(q);
          } catch (error) {
            if (/^\s*(COMMIT|ROLLBACK)\b/i.test(q.sql)) await rollback();
            throw error;
          }
        };
      }
      return tx;
    };
    return adapter;
  };
  return factory;
}

const pools = new WeakMap<Db, pg.Pool>();
const queryHooks = new WeakMap<Db, NonNullable<DbOptions['onQuery']>>();

/** The client's connection pool, for its use metrics (R6). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/** The client's query hook, which statements sent around Prisma (db/sql.ts) report to as well. */
export function queryHookOf(db: Db): DbOptions['onQuery'] {
  return queryHooks.get(db);
}

export function createDb(url: string, options: DbOptions = {}): Db {
  // The pool is made here (not by the adapter) so its use can be read; the adapter still ends it.
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 8 });
  const adapter = releasingOnFailedEnd(new PrismaPg(pool, { disposeExternalPool: true }));
  const client = new PrismaClient({ adapter, log: options.onQuery ? [{ emit: 'event', level: 'query' }] : [] });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    queryHooks.set(client, onQuery);
    (client as unknown as { $on(e: 'query', cb: (ev: { query: string; params: string }) => void): void }).$on('query', (ev) => onQuery(ev.query, ev.params));
  }
  pools.set(client, pool);
  return client;
}

const afterRollbackHooks = new WeakMap<object, Array<() => Promise<unknown>>>();

/**
 * Registers work to do once the transaction that `error` aborts has rolled back: a write that must
 * survive the rollback (the audit of a denial found under a lock). Writing it from another
 * connection while the transaction is open would wait on it with embedded PGlite, which runs one
 * transaction at a time.
 */
export function afterRollback(error: object, hook: () => Promise<unknown>): void {
  afterRollbackHooks.set(error, [...(afterRollbackHooks.get(error) ?? []), hook]);
}

/** Interactive transaction with timeouts that allow a Kubernetes call inside the lock. */
export async function transaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(fn, { maxWait: 15_000, timeout: 30_000 });
  } catch (error) {
    const hooks = typeof error === 'object' && error !== null ? afterRollbackHooks.get(error) : undefined;
    for (const hook of hooks ?? []) await hook();
    throw error;
  }
}
