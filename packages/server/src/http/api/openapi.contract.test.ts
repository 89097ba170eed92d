import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { WEBHOOK_ACTIONS, WEBHOOK_DATA_SCHEMAS, WEBHOOK_EXAMPLES } from '../../domain/webhooks/webhooks.catalog.js';
import { finishDocument } from './docs.document.js';

/**
 * What a partner's tools read in the document and meet at the service agree (issue 20): request
 * shapes apart from answer shapes, typed bulk items, response headers, named envelopes, fresh
 * webhook examples, reserved ticket ids, single-valued query parameters, nullable lead seating.
 */

type Json = any;

async function documentOf() {
  const t = createTestApp();
  return (await (await t.app.request('/v1/openapi.json')).json()) as Json;
}

function* operations(doc: Json): Generator<[string, string, Json]> {
  for (const [path, item] of Object.entries<Json>(doc.paths)) for (const [method, op] of Object.entries<Json>(item)) yield [path, method, op];
}

/** The schema names reachable from `node` through `$ref`s. */
function refsFrom(doc: Json, node: Json, into = new Set<string>()): Set<string> {
  const visit = (n: Json): void => {
    if (!n || typeof n !== 'object') return;
    const name = typeof n.$ref === 'string' ? n.$ref.replace('#/components/schemas/', '') : undefined;
    if (name && !into.has(name)) {
      into.add(name);
      visit(doc.components.schemas[name]);
    }
    for (const v of Object.values(n)) visit(v);
  };
  visit(node);
  return into;
}

describe('the OpenAPI document', () => {
  it('gives examples of parameters that can be sent as they are (a header value HTTP accepts, no … placeholder)', async () => {
    const doc = await documentOf();
    const unusable: string[] = [];
    for (const [path, method, op] of operations(doc)) {
      for (const param of (op.parameters ?? []) as Json[]) {
        const p = param.$ref ? doc.components.parameters[param.$ref.replace('#/components/parameters/', '')] : param;
        const examples = [p.example, p.schema?.example, ...Object.values<Json>(p.examples ?? {}).map((e) => e.value)].filter((e) => e !== undefined);
        for (const example of examples) {
          const where = `${method} ${path} ${p.in} ${p.name}: ${JSON.stringify(example)}`;
          if (JSON.stringify(example).includes('…')) unusable.push(`${where} (a placeholder)`);
          if (p.in === 'header') {
            try {
              // What Node's HTTP client (and Newman, Postman) check before sending a header.
              validateHeaderValue(p.name, String(example));
            } catch {
              unusable.push(`${where} (not a valid header value)`);
            }
          }
        }
      }
    }
    expect(unusable).toEqual([]);
    // The one that could not be sent: Stripe's signature header, now a whole one.
    const stripe = doc.paths['/v1/payments/stripe/events'].post.parameters.find((p: Json) => p.name === 'stripe-signature');
    expect(stripe.schema.example).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('types the items of the bulk endpoints', async () => {
    const doc = await documentOf();
    for (const path of ['/v1/tickets', '/v1/sync/tickets']) {
      const body = doc.paths[path].post.requestBody.content['application/json'].schema;
      expect(body.type).toBe('array');
      expect(body.items.$ref).toMatch(/^#\/components\/schemas\/TicketInput/);
    }
    const leads = doc.paths['/v1/marketdata/users/bulk'].post.requestBody.content['application/json'].schema;
    const bulk = doc.components.schemas[leads.$ref.replace('#/components/schemas/', '')];
    expect(bulk.properties.items.items.$ref).toMatch(/^#\/components\/schemas\/LeadInput/);
  });

  it('has no `default` in what a request sends (optional to send), and keeps them in answers', async () => {
    const doc = await documentOf();
    const sent = new Set<string>();
    for (const [, , op] of operations(doc)) if (op.requestBody) refsFrom(doc, op.requestBody, sent);
    const withDefaults = [...sent].filter((name) => JSON.stringify(doc.components.schemas[name]).includes('"default":'));
    expect(withDefaults).toEqual([]);
    // The spec's minimal event: the location fields and webVisibility are optional to send.
    const create = doc.paths['/v1/events'].post.requestBody.content['application/json'].schema;
    const sentWithEvent = [...refsFrom(doc, create)].map((name) => JSON.stringify(doc.components.schemas[name])).join('');
    expect(sentWithEvent).toContain('Default: `true`');
    // An answer keeps its defaults: the operator's view of fees always carries them.
    expect(doc.components.schemas.Fees.properties.buyerPercent.default).toBe(10);
    expect(doc.components.schemas.PartnerSettingsPatch.properties.fees.properties.buyerPercent).toMatchObject({ description: expect.stringContaining('Default: `10`') });
    expect(doc.components.schemas.PartnerSettingsPatch.properties.fees.properties.buyerPercent.default).toBeUndefined();
    // A schema in both gets a request twin.
    expect(doc.components.schemas.BuyAccessLayerSettingsInput).toBeDefined();
  });

  it('documents the headers of every answer, Idempotency-Key where accepted, and 500/503', async () => {
    const doc = await documentOf();
    let idempotent = 0;
    for (const [path, method, op] of operations(doc)) {
      const takesKey = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (takesKey) idempotent++;
      if (!['/healthz', '/readyz'].includes(path)) expect(op.responses['500'], `${method} ${path}`).toBeDefined();
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(response.headers?.['Request-Id'], `${method} ${path} ${status}`).toEqual({ $ref: '#/components/headers/RequestId' });
        if (status === '429') expect(response.headers['Retry-After']).toBeDefined();
        if (takesKey && status.startsWith('2')) expect(response.headers['Idempotent-Replayed']).toBeDefined();
      }
    }
    expect(idempotent).toBe(10);
    expect(doc.info.description).toContain('405 method_not_allowed, with an `Allow` header');
    expect(doc.paths['/v1/events'].post.responses['503'].headers['Retry-After']).toBeDefined();
  });

  it('names every JSON answer: no inline envelope is left', async () => {
    const doc = await documentOf();
    const inline: string[] = [];
    for (const [path, method, op] of operations(doc)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (schema && !schema.$ref) inline.push(`${method} ${path} ${status}`);
      }
    }
    expect(inline).toEqual([]);
    expect(doc.components.schemas.TicketJobEnvelope).toBeDefined();
    expect(doc.components.schemas.PartnerEnvelope).toBeDefined();
  });

  it('is finished once: a second pass changes nothing', async () => {
    const doc = await documentOf();
    expect(finishDocument(structuredClone(doc))).toEqual(doc);
  });

  it('gives each webhook an example that parses under its schema (ticket.update as complete-purchase builds it)', () => {
    for (const action of WEBHOOK_ACTIONS) {
      const parsed = WEBHOOK_DATA_SCHEMAS[action].safeParse(WEBHOOK_EXAMPLES[action]);
      expect(parsed.success, `${action}: ${parsed.error?.message}`).toBe(true);
    }
    expect(Object.keys(WEBHOOK_EXAMPLES['ticket.update'])).toEqual(['resaleId', 'eventId', 'showId', 'paidAt', 'total', 'currency', 'buyer', 'tickets']);
  });

  it('documents risk customer.createdAt as a date-time and lead seating as nullable', async () => {
    const doc = await documentOf();
    const customer = doc.components.schemas.RiskEvaluationRequest.properties.customer;
    expect(customer.properties.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
    const seating = doc.components.schemas.TicketHolderLead.properties.seating;
    expect(JSON.stringify(seating)).toMatch(/"null"/);
  });
});

describe('reserved ticket ids', () => {
  it('refuses the ticket ids `jobs` and `batch` at creation, naming the field, and keeps the others', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1')] }));
    const res = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('jobs'), ticketBody('batch'), ticketBody('t-1')] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, rejected: 2 });
    for (const item of res.body.data.results.slice(0, 2)) {
      expect(item.status).toBe('rejected');
      expect(item.errors).toEqual([expect.objectContaining({ code: 'invalid_value', path: 'ticketId', message: expect.stringMatching(/reserved/) })]);
    }
    // So the literal paths always mean what they say.
    expect((await t.request('GET', '/v1/tickets/t-1/url', { key: p.keys.private })).status).toBe(200);
  });
});

describe('repeated query parameters', () => {
  it('answers 400 naming a parameter of the operation sent twice, and still ignores unknown ones', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const twice = await t.request('GET', '/v1/rules?externalReferenceEventId=tour&externalReferenceEventId=other&showId=show-1', { key: p.keys.private });
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toEqual([expect.objectContaining({ code: 'invalid_value', path: 'externalReferenceEventId', in: 'query' })]);

    const inventory = await t.request('GET', '/v1/marketdata/events/tour/inventory?showId=show-1&showId=show-2', { key: p.keys.private });
    expect(inventory.status).toBe(400);
    expect(inventory.body.errors[0]).toMatchObject({ path: 'showId', in: 'query' });

    const unknown = await t.request('GET', '/v1/rules?externalReferenceEventId=tour&showId=show-1&utm=a&utm=b', { key: p.keys.private });
    expect(unknown.status).toBe(200);

    // The buy access layer, validated by hand on its hot path, refuses it the same way.
    const buy = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&eventId=other', { key: p.keys.public });
    expect(buy.status).toBe(400);
    expect(buy.body.errors).toEqual([expect.objectContaining({ code: 'invalid_value', path: 'eventId', in: 'query', message: 'eventId was sent 2 times; send it once' })]);
    expect((await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: p.keys.public })).status).toBe(200);
  });
});

describe('lead seating', () => {
  it('takes `seating: null` as documented (not known), as it takes no seating', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const base = { type: 'TICKET_HOLDER', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' }, ticketId: 'tkt-1', price: 45.5 };
    const res = await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: { ...base, seating: null } });
    expect(res.status).toBe(200);
    expect(res.body.data.lead).toMatchObject({ seating: null });
  });
});
