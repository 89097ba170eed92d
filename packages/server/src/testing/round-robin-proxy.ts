import { createServer, request, Agent, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** A load balancer for tests and benchmarks (see {@link roundRobinProxy}). */
export interface RoundRobinProxy {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests sent to each upstream so far, in the order of `upstreams`. */
  counts: number[];
  /** Takes an upstream out of the rotation (as a load balancer does when its health check fails) or back in. */
  setUp(index: number, up: boolean): void;
  close(): Promise<void>;
}

/**
 * A round-robin HTTP proxy on 127.0.0.1: each request goes to the next upstream in turn, as a
 * load balancer in front of several service processes sends it; `X-Forwarded-For` carries the
 * client's address (the services trust it with `TRUST_PROXY=loopback`). An upstream that
 * refuses the connection is skipped for that request (the next one is tried), as a load
 * balancer retries a connection refused; a request cut once sent answers 502.
 *
 * @example const proxy = await roundRobinProxy(['http://127.0.0.1:4001', 'http://127.0.0.1:4002']);
 */
export async function roundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  const targets = upstreams.map((u) => new URL(u));
  const up = targets.map(() => true);
  const counts = targets.map(() => 0);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let retriedReset = false;
      const attempt = (tried: number): void => {
        if (tried >= targets.length) {
          res.writeHead(502, { 'content-type': 'text/plain' }).end('no upstream');
          return;
        }
        let i = next++ % targets.length;
        for (let k = 0; k < targets.length && !up[i]; k++) i = next++ % targets.length;
        const target = targets[i]!;
        const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
        const upstream = request(
          { agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwarded } },
          (answer) => {
            counts[i]!++;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', (err: NodeJS.ErrnoException) => {
          if (res.headersSent) return void res.destroy();
          // Refused: nothing was sent, so another upstream may take it (a reset may come after the
          // request reached the process, so it is never retried: a POST must not run twice).
          if (err.code === 'ECONNREFUSED') return attempt(tried + 1);
          // A kept-alive socket the process closed as idle just as this request went out on it
          // (Node's documented race): the process never read the request, so sending it again
          // on a fresh socket is safe, even for a POST.
          if (err.code === 'ECONNRESET' && upstream.reusedSocket && !retriedReset) {
            retriedReset = true;
            return attempt(tried);
          }
          res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream error: ${err.code ?? err.message}`);
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    counts,
    setUp: (index, isUp) => void (up[index] = isUp),
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A connection-level load balancer (see {@link roundRobinTcpProxy}). */
export interface RoundRobinTcpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Connections sent to each upstream so far, in the order of `upstreams`. */
  counts: number[];
  close(): Promise<void>;
}

/**
 * A round-robin TCP proxy on 127.0.0.1 (a layer-4 load balancer): each client connection goes
 * to the next upstream in turn and its bytes are relayed both ways, unparsed; every request of
 * a kept-alive connection goes to the same upstream, and no `X-Forwarded-For` is added. Far
 * cheaper than {@link roundRobinProxy} per request (nothing is parsed), for benchmarks where
 * the proxy's own cost would hide the services'.
 *
 * @example const proxy = await roundRobinTcpProxy(['http://127.0.0.1:4001', 'http://127.0.0.1:4002']);
 */
export async function roundRobinTcpProxy(upstreams: string[]): Promise<RoundRobinTcpProxy> {
  const targets = upstreams.map((u) => new URL(u));
  const counts = targets.map(() => 0);
  const open = new Set<Socket>();
  let next = 0;
  const server = createNetServer((client) => {
    const i = next++ % targets.length;
    counts[i]!++;
    const upstream = connect({ host: targets[i]!.hostname, port: Number(targets[i]!.port) });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const s of [client, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
    }
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
