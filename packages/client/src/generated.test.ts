import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listOperations, renderFiles, renderOperations, type GeneratedFiles } from '../scripts/codegen.mjs';
import { fetchDocument } from '../scripts/document.mjs';
import { OPERATIONS } from './operations.js';

const PACKAGE = new URL('..', import.meta.url);
const REGENERATE = 'npm run generate -w @resale/client';

describe('the generated files', () => {
  it('are what the current server generates (else run npm run generate -w @resale/client)', async () => {
    const fresh = await renderFiles(await fetchDocument());
    const stale = (Object.keys(fresh) as (keyof GeneratedFiles)[]).filter((path) => readFileSync(new URL(path, PACKAGE), 'utf8') !== fresh[path]);
    if (stale.length > 0) {
      throw new Error(
        `packages/client/${stale.join(', packages/client/')} no longer match the server's OpenAPI document. ` +
          `Run \`${REGENERATE}\` from the repository root and commit the result.`,
      );
    }
  });

  it('name every operation of the document by its operationId', async () => {
    const doc = JSON.parse(readFileSync(new URL('openapi.json', PACKAGE), 'utf8')) as Record<string, unknown>;
    const operations = listOperations(doc);
    expect(Object.keys(OPERATIONS)).toEqual(operations.map((o) => o.operationId));
    expect(OPERATIONS.createEvent).toEqual({ method: 'post', path: '/v1/events' });
    expect(OPERATIONS.getTicketSecureUrl).toEqual({ method: 'get', path: '/v1/tickets/{ticketId}/url' });
  });

  it('fail generation when two operations share an operationId, one has none or takes a reserved name', () => {
    const doc = {
      paths: {
        '/v1/a': { get: { operationId: 'readThing' }, post: {} },
        '/v1/b': { get: { operationId: 'readThing' }, delete: { operationId: 'raw' } },
      },
    };
    expect(() => listOperations(doc)).toThrow(/operationId readThing is used by both GET \/v1\/a and GET \/v1\/b/);
    expect(() => listOperations(doc)).toThrow(/POST \/v1\/a has no operationId/);
    expect(() => listOperations(doc)).toThrow(/DELETE \/v1\/b: operationId raw is reserved/);
  });

  it('write the operations table as a const object', () => {
    expect(renderOperations([{ operationId: 'getThing', method: 'get', path: '/v1/things/{id}' }])).toContain(
      'export const OPERATIONS = {\n  "getThing": { method: "get", path: "/v1/things/{id}" },\n} as const;',
    );
  });
});
