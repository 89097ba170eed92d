import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeSync } from '../../lib/compression.js';
import { rawRequest } from '../../http/middleware/compression.testing.js';
import { listen } from '../../testing/harness.js';
import { compressedAnswer } from './accesslayer.buy.cache.js';
import { BANNER_SETTINGS } from './accesslayer.buy.fixtures.js';
import { setup } from './accesslayer.buy.testing.js';

/** Every component on: an answer well above the 1 KB threshold. */
const SETTINGS = {
  buyAccessLayer: {
    buyBanner: BANNER_SETTINGS,
    buyModal: { visible: true, title: { en: 'Tickets from fans', es: 'Entradas de fans' }, description: { en: 'Safe.', es: 'Seguro.' }, ctaText: { en: 'Open', es: 'Abrir' }, image: 'https://partner.example/img/modal.jpg' },
    buyButton: { visible: true, ctaText: { en: 'Resale', es: 'Reventa' }, colors: { background: '#000000', text: '#ffffff' } },
    categoriesList: { visible: true, ctaText: { en: 'Buy', es: 'Comprar' } },
    disabledTicketOptions: [],
  },
};

async function served() {
  const s = await setup({ settings: SETTINGS });
  const http = await listen(s.t.app);
  const url = `${http.base}/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1`;
  const get = (accept?: string, method = 'GET') => rawRequest(url, { authorization: s.p.keys.public, ...(accept === undefined ? {} : { 'accept-encoding': accept }) }, method);
  return { ...s, http, get };
}

describe('buy access layer: compressed answers over HTTP', () => {
  it('answers Brotli or gzip by Accept-Encoding, equal to compressing the fresh answer, with Vary and Content-Length', async () => {
    const { http, get, list } = await served();
    try {
      await list(['f3'], 4000);
      const plain = await get();
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding, Authorization');
      expect(plain.body.length).toBeGreaterThan(1024);
      const json = plain.body.toString();
      expect(JSON.parse(json).status).toBe(200);

      const br = await get('gzip, deflate, br, zstd');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['content-type']).toBe('application/json');
      expect(br.headers.vary).toBe('Accept-Encoding, Authorization');
      expect(br.headers['request-id']).toBeDefined();
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(brotliDecompressSync(br.body).toString()).toBe(json);
      // The cached compressed body is the fresh answer compressed (same settings), byte for byte.
      expect(br.body.equals(encodeSync(Buffer.from(json), 'br'))).toBe(true);
      expect(br.body.length).toBeLessThan(json.length / 2);

      const gz = await get('gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).toString()).toBe(json);
      expect(gz.body.equals(encodeSync(Buffer.from(json), 'gzip'))).toBe(true);

      for (const accept of ['identity', 'zstd', 'br;q=0, gzip;q=0', 'identity;q=0, zstd', '']) {
        const r = await get(accept);
        expect(r.headers['content-encoding'], accept).toBeUndefined();
        expect(r.body.toString(), accept).toBe(json);
      }
      expect((await get('br;q=0.2, gzip;q=0.9')).headers['content-encoding']).toBe('gzip');

      // From the cache: the same bytes again, and after a write the new answer, compressed anew.
      expect((await get('br')).body.equals(br.body)).toBe(true);
      await list(['f4'], 3000);
      const fresh = (await get()).body.toString();
      expect(fresh).not.toBe(json);
      const after = await get('br');
      expect(brotliDecompressSync(after.body).toString()).toBe(fresh);
      expect(after.body.equals(encodeSync(Buffer.from(fresh), 'br'))).toBe(true);

      const head = await get('br', 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-encoding']).toBe('br');
      expect(head.headers['content-length']).toBe(after.headers['content-length']);
    } finally {
      await http.close();
    }
  });

  it('answers the bulk form compressed too (by the compression middleware)', async () => {
    const { http, p } = await served();
    try {
      const url = `${http.base}/v1/wrapper/accesslayer/bulk?type=buy`;
      const body = JSON.stringify([{ eventId: 'tour', showIds: ['show-1', 'show-2'] }]);
      const headers = { authorization: p.keys.public, 'content-type': 'application/json' };
      const plain = await rawRequest(url, headers, 'POST', body);
      expect(plain.status).toBe(200);
      expect(plain.body.length).toBeGreaterThan(1024);
      const gz = await rawRequest(url, { ...headers, 'accept-encoding': 'gzip' }, 'POST', body);
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers.vary).toContain('Accept-Encoding');
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    } finally {
      await http.close();
    }
  });

  it('keeps errors small and uncompressed', async () => {
    const { http, p } = await served();
    try {
      const res = await rawRequest(`${http.base}/v1/wrapper/accesslayer?type=buy&eventId=nope&showId=show-1`, { authorization: p.keys.public, 'accept-encoding': 'br' });
      expect(res.status).toBe(404);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.body.toString()).errors[0].code).toBe('not_found');
    } finally {
      await http.close();
    }
  });

  it('compresses a rendered answer once per coding, for as long as those bytes are the cached answer', () => {
    const bytes = Buffer.from(JSON.stringify({ status: 200, data: Array.from({ length: 50 }, (_, i) => ({ i })) }));
    const br = compressedAnswer(bytes, 'br');
    expect(compressedAnswer(bytes, 'br')).toBe(br);
    expect(brotliDecompressSync(br).equals(bytes)).toBe(true);
    expect(gunzipSync(compressedAnswer(bytes, 'gzip')).equals(bytes)).toBe(true);
    // Another answer (a rebuild renders new bytes) is compressed anew.
    expect(compressedAnswer(Buffer.from(bytes), 'br')).not.toBe(br);
  });
});
