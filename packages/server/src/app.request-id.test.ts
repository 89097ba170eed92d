import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { inboundRequestId, traceIdOf } from './http/middleware/request-context.js';
import { eventBody } from './testing/factories.js';
import { createTestApp, listen } from './testing/harness.js';
import { capturedLogger } from './testing/logs.js';
import { sqlExec } from './testing/sql.js';

/** A test app whose log lines are kept, parsed. */
function appWithLog() {
  const { logger, lines } = capturedLogger();
  const t = createTestApp({}, { logger });
  const requestLines = () => lines.filter((l) => l.msg === 'request');
  return { t, lines, requestLines };
}

const GENERATED = /^req_[A-Za-z0-9_-]{12}[0-9a-z]+$/;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('Request-Id from the caller', () => {
  it('is generated when none is sent, unique per request, and logged', async () => {
    const { t, requestLines } = appWithLog();
    const a = await t.request('GET', '/v1/nothing');
    const b = await t.request('GET', '/v1/nothing');
    expect(a.headers.get('request-id')).toMatch(GENERATED);
    expect(b.headers.get('request-id')).toMatch(GENERATED);
    expect(a.headers.get('request-id')).not.toBe(b.headers.get('request-id'));
    expect(requestLines().map((l) => l.requestId)).toEqual([a.headers.get('request-id'), b.headers.get('request-id')]);
    expect(requestLines()[0]).not.toHaveProperty('traceId');
    expect(requestLines()[0]).not.toHaveProperty('requestIdRefused');
  });

  it('is honoured when bounded and of safe characters: answered, logged, and quoted in a 500', async () => {
    const { t, lines, requestLines } = appWithLog();
    const accepted = ['checkout-7f3a:retry.2', 'A_b.C-d:0', '0', 'x'.repeat(128), '550e8400-e29b-41d4-a716-446655440000', 'req_abc'];
    for (const id of accepted) {
      const res = await t.request('GET', '/v1/nothing', { headers: { 'Request-Id': id } });
      expect(res.headers.get('request-id'), id).toBe(id);
    }
    expect(requestLines().map((l) => l.requestId)).toEqual(accepted);
    expect(requestLines().every((l) => !('requestIdRefused' in l))).toBe(true);

    const p = await t.partner();
    await sqlExec(t.db, 'drop table combinations');
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('x') });
    const failed = await t.request('GET', '/v1/events/x', { key: p.keys.private, headers: { 'request-id': 'support-case-42' } });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('request-id')).toBe('support-case-42');
    expect(failed.body.errors[0].message).toContain('Quote request id support-case-42 to support');
    expect(lines.find((l) => l.msg === 'unhandled error')?.requestId).toBe('support-case-42');
  });

  it('is refused, never echoed nor logged, and replaced by a generated one when too long or of other characters', async () => {
    const { t, lines, requestLines } = appWithLog();
    const refused = [
      'x'.repeat(129),
      'has space',
      'slash/path',
      'comma,separated',
      'semi;colon',
      'equals=sign',
      'quote"d',
      "apostrophe'",
      '<script>alert(1)</script>',
      'percent%0d%0aSet-Cookie:%20evil=1',
      'tab\there',
      'caf\u00e9',
      '{"json":1}',
      'back\\slash',
      'plus+sign',
    ];
    for (const value of refused) {
      const res = await t.request('GET', '/v1/nothing', { headers: { 'Request-Id': value } });
      const id = res.headers.get('request-id');
      expect(id, value).toMatch(GENERATED);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const logged = JSON.stringify(lines);
    for (const value of refused) expect(logged).not.toContain(JSON.stringify(value).slice(1, -1));
    expect(requestLines()).toHaveLength(refused.length);
    for (const line of requestLines()) {
      expect(line.requestId).toMatch(GENERATED);
      expect(line.requestIdRefused).toBe(true);
    }
  });

  it('an empty Request-Id counts as none (generated, not "refused")', async () => {
    const { t, requestLines } = appWithLog();
    const res = await t.request('GET', '/v1/nothing', { headers: { 'Request-Id': '' } });
    expect(res.headers.get('request-id')).toMatch(GENERATED);
    expect(requestLines()[0]).not.toHaveProperty('requestIdRefused');
  });

  it('over real HTTP: a repeated header, obs-text bytes and header injection attempts never reach the answer', async () => {
    const { t, requestLines } = appWithLog();
    const http = await listen(t.app);
    /** Sends raw bytes, answers the response head as text (or the error Node answered with). */
    const raw = (head: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(http.port, '127.0.0.1', () => socket.end(head));
        const chunks: Buffer[] = [];
        socket.on('data', (d) => chunks.push(d));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')[0]!));
      });
    const request = (...headerLines: string[]) => Buffer.from(['GET /v1/nothing HTTP/1.1', 'Host: x', 'Connection: close', ...headerLines, '', ''].join('\r\n'), 'latin1');
    try {
      // Two Request-Id headers (Node joins them with ", "): neither is used.
      const twice = await raw(request('Request-Id: first-id', 'Request-Id: second-id'));
      expect(twice).toMatch(/^HTTP\/1\.1 404/);
      expect(twice).toMatch(/\r\nRequest-Id: req_/i);
      expect(twice).not.toMatch(/first-id|second-id/);

      // Bytes above 0x7f (obs-text, which Node lets through), including NEL (0x85).
      const obsText = await raw(Buffer.concat([Buffer.from('GET /v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\nRequest-Id: abc'), Buffer.from([0xc2, 0x85, 0xff]), Buffer.from('Set-Cookie: evil=1\r\n\r\n')]));
      expect(obsText).toMatch(/\r\nRequest-Id: req_/i);
      expect(obsText).not.toMatch(/evil/);

      // A CR or LF inside the value, or a folded line: either Node refuses the request (400 of
      // its own), or what arrives is an ordinary header; never an injected response header.
      for (const attempt of ['Request-Id: abc\rSet-Cookie: evil=1', 'Request-Id: abc\nSet-Cookie: evil=1', 'Request-Id: abc\r\n Set-Cookie: evil=1', 'Request-Id: abc\r\n\tX-Injected: 1']) {
        const head = await raw(request(attempt));
        expect(head, JSON.stringify(attempt)).toMatch(/^HTTP\/1\.1 (400|404)/);
        expect(head, JSON.stringify(attempt)).not.toMatch(/evil|X-Injected/i);
      }
    } finally {
      await http.close();
    }
    for (const line of requestLines()) expect(String(line.requestId)).toMatch(GENERATED);
  });
});

describe('traceparent (W3C Trace Context)', () => {
  it('when valid, its trace id is logged as traceId with the request line; the request id stays ours', async () => {
    const { t, requestLines } = appWithLog();
    const res = await t.request('GET', '/v1/nothing', { headers: { traceparent: TRACEPARENT } });
    expect(res.headers.get('request-id')).toMatch(GENERATED);
    expect(res.headers.get('traceparent')).toBeNull();
    expect(requestLines()[0]).toMatchObject({ requestId: res.headers.get('request-id'), traceId: TRACE_ID });
  });

  it('goes with an honoured Request-Id: both are logged', async () => {
    const { t, requestLines } = appWithLog();
    const res = await t.request('GET', '/v1/nothing', { headers: { traceparent: TRACEPARENT, 'Request-Id': 'order-991' } });
    expect(res.headers.get('request-id')).toBe('order-991');
    expect(requestLines()[0]).toMatchObject({ requestId: 'order-991', traceId: TRACE_ID });
  });

  it('with a refused Request-Id: a generated id, the trace id still logged', async () => {
    const { t, requestLines } = appWithLog();
    const res = await t.request('GET', '/v1/nothing', { headers: { traceparent: TRACEPARENT, 'Request-Id': 'bad id' } });
    expect(res.headers.get('request-id')).toMatch(GENERATED);
    expect(requestLines()[0]).toMatchObject({ traceId: TRACE_ID, requestIdRefused: true });
  });

  it('when invalid, is ignored: no traceId logged', async () => {
    const { t, requestLines } = appWithLog();
    const invalid = [
      `01-${TRACE_ID}-00f067aa0ba902b7-01`, // another version
      `ff-${TRACE_ID}-00f067aa0ba902b7-01`, // the forbidden version
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, // all-zero trace id
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`, // all-zero parent id
      `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`, // upper case
      `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`, // short trace id
      `00-${TRACE_ID}-00f067aa0ba902b-01`, // short parent id
      `00-${TRACE_ID}-00f067aa0ba902b7-1`, // one-digit flags
      `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`, // trailing data (version 00 has none)
      `00-${TRACE_ID}-00f067aa0ba902b7-0g`, // not hex
      `00_${TRACE_ID}_00f067aa0ba902b7_01`, // wrong separators
      `${TRACEPARENT}, 00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, // repeated header, joined
      'garbage',
    ];
    for (const value of invalid) {
      const res = await t.request('GET', '/v1/nothing', { headers: { traceparent: value } });
      expect(res.headers.get('request-id'), value).toMatch(GENERATED);
    }
    expect(requestLines()).toHaveLength(invalid.length);
    for (const line of requestLines()) expect(line).not.toHaveProperty('traceId');
  });

  it('over real HTTP too (headers read from the IncomingMessage)', async () => {
    const { t, requestLines } = appWithLog();
    const http = await listen(t.app);
    try {
      const res = await fetch(`${http.base}/v1/nothing`, { headers: { traceparent: TRACEPARENT, 'Request-Id': 'edge-1.2:3' } });
      expect(res.headers.get('request-id')).toBe('edge-1.2:3');
      const bad = await fetch(`${http.base}/v1/nothing`, { headers: { traceparent: 'nope', 'Request-Id': 'x'.repeat(129) } });
      expect(bad.headers.get('request-id')).toMatch(GENERATED);
    } finally {
      await http.close();
    }
    expect(requestLines()[0]).toMatchObject({ requestId: 'edge-1.2:3', traceId: TRACE_ID });
    expect(requestLines()[1]).not.toHaveProperty('traceId');
    expect(requestLines()[1]).toMatchObject({ requestIdRefused: true });
  });
});

describe('inboundRequestId and traceIdOf', () => {
  it('accept exactly the bounded safe ids and the valid version-00 traceparents', () => {
    expect(inboundRequestId('a'.repeat(128))).toBe('a'.repeat(128));
    expect(inboundRequestId('a'.repeat(129))).toBeNull();
    expect(inboundRequestId('')).toBeNull();
    expect(inboundRequestId('ok\r\nSet-Cookie: x=1')).toBeNull();
    expect(inboundRequestId('ok\u0000')).toBeNull();
    expect(traceIdOf(TRACEPARENT)).toBe(TRACE_ID);
    expect(traceIdOf(`00-${TRACE_ID}-00f067aa0ba902b7-00`)).toBe(TRACE_ID);
    expect(traceIdOf(`00-${'0'.repeat(31)}1-${'0'.repeat(15)}1-ff`)).toBe(`${'0'.repeat(31)}1`);
    expect(traceIdOf(`00-${'0'.repeat(32)}-${'0'.repeat(15)}1-01`)).toBeNull();
  });
});
