import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
/** The client inside an interactive transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface DbOptions {
  poolSize?: number;
  /** Called once per SQL statement (tests count them). */
  onQuery?: (sql: string) => void;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const adapter = new PrismaPg({ connectionString: url, max: options.poolSize ?? 8 });
  const client = new PrismaClient({ adapter, log: options.onQuery ? [{ emit: 'event', level: 'query' }] : [] });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (client as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) => onQuery(ev.query));
  }
  return client;
}

/** Interactive transaction with timeouts that allow a Kubernetes call inside the lock. */
export function transaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(fn, { maxWait: 15_000, timeout: 30_000 });
}
