import type { Server } from 'node:http';
import type { Logger } from '../log.ts';
import type { HttpApp } from './server.ts';

// R5: on SIGTERM a replica leaves the load balancer at once (/readyz fails), accepts no new
// connection, lets the requests it is answering finish within a deadline, and only then stops
// its worker (after the current step; the item is handed back), releases its Lease and closes its
// pools. What has not finished by the deadline is cut, and the answer says so.

export interface ShutdownOptions {
  app: HttpApp;
  /** The listeners serving `app`. */
  servers: readonly Server[];
  /** Stops the runtime: worker, leader election, pools, embedded servers. */
  closeRuntime: () => Promise<void>;
  deadlineMs: number;
  logger: Logger;
}

export async function gracefulShutdown(options: ShutdownOptions): Promise<{ cutConnections: boolean }> {
  const { app, servers, logger } = options;
  app.drain();
  const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  for (const server of servers) server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), options.deadlineMs)));
  const cutConnections = (await Promise.race([closed.then(() => 'drained' as const), deadline])) === 'deadline';
  clearTimeout(timer);
  if (cutConnections) {
    logger.warn('shutdown deadline reached: closing the connections still open', { deadlineMs: options.deadlineMs });
    for (const server of servers) server.closeAllConnections();
    await closed;
  }
  await options.closeRuntime();
  logger.info('stopped', { cutConnections });
  return { cutConnections };
}
