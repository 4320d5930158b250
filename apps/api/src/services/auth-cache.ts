import { randomUUID } from 'node:crypto';
import type { BindingView } from '@occ/domain/access';
import pg from 'pg';
import { poolOf, type Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import type { NamespaceView } from './namespaces.ts';

// Every request authenticates its key (or session) and most read the caller's
// bindings: two statements that, measured, were about a quarter of a page of secrets. An API
// process keeps what those statements found, and forgets all of it whenever any key, session,
// principal, binding or role changes, in any process:
//
// - Triggers (prisma/migrations/…_auth_change_notifications) NOTIFY occ_auth_changed at the
//   commit of every such change.
// - Every connection of this process's pool LISTENs. PostgreSQL hands a session the notification
//   of its own commit before the COMMIT returns, so a change made by this process is forgotten
//   before the request that made it answers: the next request, here, reads afresh.
// - One more connection LISTENs for the changes of other processes, which arrive as soon as they
//   commit. While it is not connected, or was never shown to receive, nothing is kept: the cache
//   is off, and every request reads as before. It is cleared whenever it turns on again.
// - A read that began before a change and ends after it keeps nothing (the generation moved).
// - Nothing is kept longer than ENTRY_TTL_MS, a bound should a notification ever be lost.
// - A miss is never kept: a key that is not found is read again on its next use.
//
// Namespace rows are kept the same way (their own migration, …_namespace_change_notifications):
// every namespaced page is reached through namespace(id), and namespaces change seldom.
//
// Reads inside a transaction never use it (access.ts): the re-checks under a lock see what is
// committed. With embedded PGlite no notification crosses connections, so the cache stays off.

export const AUTH_CHANNEL = 'occ_auth_changed';
/** The longest any entry is trusted, notifications or not. */
export const ENTRY_TTL_MS = 5_000;
/** Past this many entries in one map the map is emptied (a bound, not an eviction policy). */
const MAX_ENTRIES = 10_000;
const PROBE = 'probe:';
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 2_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 15_000;

/** An API key (or a session's key) in force, with its principal, as authenticate.ts reads it. */
export interface KeyRow {
  keyId: string;
  principalId: string;
  kind: 'HUMAN' | 'SERVICE';
  name: string;
  lastUsedAt: Date | null;
  /** A session's end (sessions only). */
  expiresAt?: Date;
}

type Entry<T> = { value: T; at: number };

/** What is kept, by kind: a key by its hash, a session by its token's hash, bindings by principal. */
export interface Kept {
  key: KeyRow;
  session: KeyRow;
  /** Frozen when kept. */
  bindings: BindingView[];
  /** A namespace's row by its id (namespaces.ts, getNamespace); frozen when kept. */
  namespace: NamespaceView;
}
export type Kind = keyof Kept;

const inForce = (row: KeyRow, now: number) => row.expiresAt !== undefined && row.expiresAt.getTime() >= now;

export class AuthCache {
  private live = false;
  private generation = 0;
  private readonly maps: { [K in Kind]: Map<string, Entry<Kept[K]>> } = { key: new Map(), session: new Map(), bindings: new Map(), namespace: new Map() };
  private readonly watchers = new Set<(table: string) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  get on(): boolean {
    return this.live;
  }

  /** Forgets everything, and any read in flight will not be kept. */
  clear(): void {
    this.generation++;
    for (const map of Object.values(this.maps)) map.clear();
  }

  setLive(live: boolean): void {
    this.clear();
    this.live = live;
  }

  /** A change announced (the table's name), seen on any of this process's connections. */
  changed(table: string): void {
    this.clear();
    for (const watch of this.watchers) watch(table);
  }

  /** Calls `fn` with each change's table name as it is seen (tests wait on changes with it). */
  watch(fn: (table: string) => void): () => void {
    this.watchers.add(fn);
    return () => void this.watchers.delete(fn);
  }

  /**
   * What `read` finds for `id`, kept: the kept value while the cache is on, not past its time to
   * live and (a session) not past its end; else `read`'s answer, kept unless it is a miss or a
   * change was seen while it was read (a read that began before the change may have missed it).
   */
  async remember<K extends Kind>(kind: K, id: string, read: () => Promise<Kept[K] | null>): Promise<Kept[K] | null> {
    const map = this.maps[kind] as Map<string, Entry<Kept[K]>>;
    const kept = this.get(map, id);
    if (kept && (kind !== 'session' || inForce(kept as KeyRow, this.now()))) return kept;
    const token = this.generation;
    const value = await read();
    if (value !== null && this.live && token === this.generation) {
      if (map.size >= MAX_ENTRIES) map.clear();
      map.set(id, { value: kind === 'bindings' || kind === 'namespace' ? (Object.freeze(value) as Kept[K]) : value, at: this.now() });
    }
    return value;
  }

  private get<T>(map: Map<string, Entry<T>>, id: string): T | undefined {
    if (!this.live) return undefined;
    const entry = map.get(id);
    if (!entry) return undefined;
    if (this.now() - entry.at > ENTRY_TTL_MS) {
      map.delete(id);
      return undefined;
    }
    return entry.value;
  }
}

const caches = new WeakMap<Db, AuthCache>();

/** The client's authentication cache, when its process runs one (and it may still be off). */
export function authCacheOf(db: object): AuthCache | undefined {
  return caches.get(db as Db);
}

/** `read`'s answer, kept by the client's authentication cache when its process runs one. */
export function remembered<K extends Kind>(db: object, kind: K, id: string, read: () => Promise<Kept[K] | null>): Promise<Kept[K] | null> {
  const cache = caches.get(db as Db);
  return cache ? cache.remember(kind, id, read) : read();
}

export interface AuthCacheHandle {
  cache: AuthCache;
  /** Settles once the first attempt to turn the cache on has ended, on or off. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the cache of a client: its pool's connections listen from now on (call it before the
 * pool's first statement), and a listener connection to `url` turns the cache on once a probe
 * notification sent from the pool has reached both.
 */
export function startAuthCache(db: Db, url: string, logger: Logger): AuthCacheHandle {
  const pool = poolOf(db);
  const cache = new AuthCache();
  caches.set(db, cache);
  const log = logger.child({ component: 'auth-cache' });
  const onNotification = (message: pg.Notification) => {
    if (message.channel === AUTH_CHANNEL && !message.payload?.startsWith(PROBE)) cache.changed(message.payload ?? '');
  };
  if (pool) {
    // pg-pool awaits its onConnect hook before it hands a new connection out, so LISTEN is in
    // force before the connection's first statement (a query queued behind it is deprecated).
    const options = (pool as unknown as { options: { onConnect?: (client: pg.PoolClient) => Promise<void> } }).options;
    const before = options.onConnect;
    options.onConnect = async (client) => {
      await before?.(client);
      client.on('notification', onNotification);
      await client.query(`LISTEN ${AUTH_CHANNEL}`);
    };
  }

  let closed = false;
  let listener: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wait = RECONNECT_MIN_MS;

  const schedule = (fn: () => void, ms: number) => {
    if (closed) return;
    timer = setTimeout(fn, ms);
    timer.unref();
  };

  const lost = (client: pg.Client, why: string) => {
    if (listener !== client) return;
    listener = null;
    if (cache.on) log.warn('auth cache off: its listener connection was lost', { reason: why });
    cache.setLive(false);
    client.end().catch(() => undefined);
    schedule(connect, wait);
    wait = Math.min(wait * 2, RECONNECT_MAX_MS);
  };

  const heartbeat = (client: pg.Client) => {
    schedule(() => {
      if (listener !== client) return;
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('heartbeat timed out')), HEARTBEAT_TIMEOUT_MS).unref());
      Promise.race([client.query('SELECT 1'), timeout]).then(
        () => heartbeat(client),
        (error: unknown) => lost(client, (error as Error).message),
      );
    }, HEARTBEAT_MS);
  };

  async function connect(): Promise<void> {
    if (closed || !pool) return;
    const client = new pg.Client({ connectionString: url, keepAlive: true, application_name: 'occ-auth-listener' });
    listener = client;
    client.on('error', (error) => lost(client, error.message));
    client.on('end', () => lost(client, 'connection ended'));
    try {
      await client.connect();
      const nonce = `${PROBE}${randomUUID()}`;
      const reached = new Promise<boolean>((resolve) => {
        const done = setTimeout(() => resolve(false), 2_000);
        client.on('notification', (message) => {
          if (message.channel !== AUTH_CHANNEL) return;
          if (message.payload === nonce) {
            clearTimeout(done);
            resolve(true);
          } else onNotification(message);
        });
      });
      await client.query(`LISTEN ${AUTH_CHANNEL}`);
      const own = await pool.connect();
      let ownSeen = false;
      const seeOwn = (message: pg.Notification) => void (message.payload === nonce && (ownSeen = true));
      own.on('notification', seeOwn);
      try {
        await own.query('SELECT pg_notify($1, $2)', [AUTH_CHANNEL, nonce]);
      } finally {
        own.off('notification', seeOwn);
        own.release();
      }
      const crossed = await reached;
      if (listener !== client || closed) return;
      if (!ownSeen || !crossed) {
        log.info('auth cache off: this database does not deliver notifications', { ownCommit: ownSeen, otherSessions: crossed });
        listener = null;
        await client.end().catch(() => undefined);
        return;
      }
      wait = RECONNECT_MIN_MS;
      cache.setLive(true);
      log.info('auth cache on');
      heartbeat(client);
    } catch (error) {
      lost(client, (error as Error).message);
    }
  }

  const started = connect();
  return {
    cache,
    ready: started,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await started;
      cache.setLive(false);
      const client = listener;
      listener = null;
      await client?.end().catch(() => undefined);
    },
  };
}
