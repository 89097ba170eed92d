import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * The partner platform's ownership endpoint played by a real loopback server: `GET ?user=`
 * answers whatever `owned` holds for that user (JSON), 404 for anyone else. Servers close after
 * each test of the file that calls this.
 *
 * @example const url = await ownershipEndpoint(owned); const p = t.partner('Acme', { ownershipUrl: url });
 */
export async function ownershipEndpoint(owned: Map<string, unknown[]>): Promise<string> {
  const server = createServer((req, res) => {
    const list = owned.get(new URL(req.url!, 'http://x').searchParams.get('user') ?? '');
    if (!list) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/owned`;
}

const open: Server[] = [];
afterEach(() => open.splice(0).forEach((s) => s.close()));
