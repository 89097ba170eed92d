import { createServer } from 'node:http';

/**
 * The service and the demo partner site running for real on loopback, exactly as `npm start`
 * wires them (the sandbox partner's ownership endpoint, Login Force page, webhooks and CORS
 * origin point at the demo), on free ports with a temporary database: the demo's own test
 * stack, shared so the two never drift apart. The demo is on `localhost`, the service on
 * `127.0.0.1`: two origins, as a partner's site and the service are.
 */
export { startTestStack as startStack, TEST_KEYS, type TestStack as Stack } from '@resale/demo/testing';

/**
 * Serves one HTML page on loopback (http://localhost:<port>/), as a partner's own page with
 * its own headers. A real server rather than Playwright's route interception: Chrome lets only
 * pages from a local address load scripts from a loopback service.
 */
export async function servePage(headers: Record<string, string>, html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}/`,
    // Chromium may hold a preconnected socket that never sent a request; close() alone would
    // wait for it until the headers timeout (a minute), so every connection is cut first.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
