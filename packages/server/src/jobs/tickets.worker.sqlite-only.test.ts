import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startService } from '../testing/service.js';
import { eventBody, priceDetailShowBody, showBody, ticketBody } from '../testing/factories.js';
import { tempDir } from '../testing/temp-dir.js';

/**
 * SQLite only: the ingestion worker thread (tickets.worker.ts). main.ts starts it when the
 * database is a file; it opens its own connection and drains POST /v1/tickets while the main
 * thread serves. PostgreSQL drains the queue in every process (no thread), checked by the
 * tickets tests on both engines.
 */

const KEY = 'sk_worker_private_key_00000000000000000';

describe('the ingestion worker thread over a SQLite file', () => {
  it('applies queued ticket jobs while the service serves, and stops with the service', async () => {
    const dir = tempDir('resale-worker');
    const service = await startService({
      DATABASE_PATH: join(dir, 'resale.sqlite'),
      SANDBOX_PRIVATE_KEY: KEY,
      SANDBOX_PUBLIC_KEY: 'pk_worker_public_key_000000000000000000',
      SANDBOX_CHANNELS_KEY: 'sk_ch_worker_channels_key_000000000000',
    });
    const base = `http://127.0.0.1:${service.port}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: KEY, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, body: (await res.json()) as { data: any } };
    };
    expect((await call('POST', '/v1/events', eventBody('tour', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }))).status).toBe(200);
    const jobs = [];
    for (let j = 0; j < 3; j++) {
      const res = await call('POST', '/v1/tickets', Array.from({ length: 50 }, (_, i) => ticketBody(`w${j}-${i}`)));
      expect(res.status).toBe(202);
      jobs.push(res.body.data.jobId as string);
    }
    // The thread is woken by each enqueue; the service answers meanwhile.
    expect((await call('GET', '/v1/events/tour')).status).toBe(200);
    for (const jobId of jobs) {
      let state = '';
      for (let i = 0; i < 200 && state !== 'done'; i++) {
        state = (await call('GET', `/v1/tickets/jobs/${jobId}`)).body.data.state;
        if (state !== 'done') await new Promise((r) => setTimeout(r, 25));
      }
      expect(state, jobId).toBe('done');
      expect((await call('GET', `/v1/tickets/jobs/${jobId}`)).body.data).toMatchObject({ total: 50, created: 50, rejected: 0 });
    }
    expect((await call('GET', '/v1/tickets/w2-49/url')).status).toBe(200);
  });
});
