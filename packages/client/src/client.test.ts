import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createTestPartner, startTestService, type TestService } from '../testing/service.js';
import { createResaleClient, OPERATIONS, ResaleApiError, unwrap, verifyWebhook, type ErrorEnvelope, type Schemas, type WebhookPayload } from './index.js';

describe('createResaleClient against the real service', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService();
    key = (await createTestPartner(service)).keys.private;
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('has a method per operationId, and the raw client', () => {
    const resale = createResaleClient({ baseUrl: service.baseUrl, key });
    for (const operationId of Object.keys(OPERATIONS)) expect(typeof resale[operationId as keyof typeof OPERATIONS], operationId).toBe('function');
    expect(typeof resale.raw.GET).toBe('function');
  });

  it('answers a 4xx as the typed error envelope (unknown event: 404 not_found)', async () => {
    const resale = createResaleClient({ baseUrl: service.baseUrl, key });
    const result = await resale.getEvent({ params: { path: { externalReferenceId: 'no-such-event' } } });
    expect(result.data).toBeUndefined();
    expect(result.response.status).toBe(404);
    expectTypeOf<NonNullable<typeof result.error>>().toExtend<ErrorEnvelope>();
    expectTypeOf<ErrorEnvelope>().toExtend<NonNullable<typeof result.error>>();
    expect(result.error).toMatchObject({ status: 404, data: null, errors: [{ code: 'not_found' }] });

    const thrown = await resale.getEvent({ params: { path: { externalReferenceId: 'no-such-event' } } }).then(unwrap).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(ResaleApiError);
    expect(thrown).toMatchObject({ status: 404, envelope: { errors: [{ code: 'not_found' }] } });
    expect((thrown as ResaleApiError).requestId).toMatch(/\S/);
  });

  it('answers a wrong key with 401 unauthorized', async () => {
    const resale = createResaleClient({ baseUrl: service.baseUrl, key: 'sk_not_a_key_of_anyone_0123456789' });
    const { error, response } = await resale.getEvent({ params: { path: { externalReferenceId: 'tour' } } });
    expect(response.status).toBe(401);
    expect(error?.errors.map((e) => e.code)).toEqual(['unauthorized']);
  });

  it('answers validation errors naming each field', async () => {
    const resale = createResaleClient({ baseUrl: service.baseUrl, key });
    // A body the types refuse (title, shows … missing), sent anyway to see the service's answer.
    const body = { externalReferenceId: 'x' } as unknown as Schemas['EventCreate'];
    const { error, response } = await resale.createEvent({ body });
    expect(response.status).toBe(400);
    expect(error?.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['title', 'shows']));
  });

  it('sends the key as a Bearer token through the given fetch, and answers typed data', async () => {
    const seen: string[] = [];
    const resale = createResaleClient({
      baseUrl: `${service.baseUrl}/`,
      key,
      fetch: (request) => {
        seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization')}`);
        return fetch(request);
      },
    });
    const { data } = unwrap(await resale.getLiveness());
    expect(data).toBeDefined();
    const raw = await resale.raw.GET('/v1/events/{externalReferenceId}', { params: { path: { externalReferenceId: 'nope' } } });
    expect(raw.error?.errors[0]?.code).toBe('not_found');
    expect(seen).toEqual([`GET /healthz Bearer ${key}`, `GET /v1/events/nope Bearer ${key}`]);
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const payload: WebhookPayload<'listing.created'> = {
    family: 'listing',
    action: 'listing.created',
    data: { listingId: 'lst_1', ticketIds: ['t-1'], eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt', price: 40, currency: 'EUR', state: 'ACTIVE' },
  };
  const body = JSON.stringify(payload);
  const signed = (text: string) => {
    const at = new Date();
    return { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_1', at, text) };
  };

  it('answers the typed payload of a signed body (string, bytes or Headers)', () => {
    const headers = signed(body);
    const event = verifyWebhook(body, headers, secret);
    expect(event).toEqual(payload);
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(payload);
    if (event.action === 'listing.created') expectTypeOf(event.data.listingId).toEqualTypeOf<string>();
  });

  it('rejects a tampered body, a wrong secret and missing headers', () => {
    const headers = signed(body);
    expect(() => verifyWebhook(body.replace('"price":40', '"price":4'), headers, secret)).toThrow();
    expect(() => verifyWebhook(body, headers, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toThrow();
    expect(() => verifyWebhook(body, { 'webhook-id': 'msg_1' }, secret)).toThrow();
  });
});
