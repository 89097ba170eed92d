import type { Server } from 'node:http';

/**
 * Closes the local HTTP servers a test started (partner platforms, feeds, receivers) and
 * empties the list: open connections are cut first, so a hanging request does not keep the
 * close waiting.
 *
 * @example afterEach(() => closeServers(servers));
 */
export async function closeServers(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          if (!s.listening) return resolve();
          s.close(() => resolve());
        }),
    ),
  );
}
