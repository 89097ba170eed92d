import { request } from 'node:http';

/** An answer as it came over the socket: the body's bytes exactly as sent, not decoded. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A request over real HTTP with node:http, which (unlike fetch) neither adds an
 * `Accept-Encoding` of its own nor decodes the answer: the test sees the bytes on the wire.
 *
 * @example const res = await rawRequest(`${http.base}/widgets/v1/resale.js`, { 'accept-encoding': 'br' });
 */
export function rawRequest(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
