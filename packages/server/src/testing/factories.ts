import { expect } from 'vitest';
import { generateDeviceKeys, importTagKey, makeCode } from '@resale/shared/admission-crypto';
import type { Binding } from '../domain/admission/admission.service.js';
import type { TestApp, TestPartner } from './harness.js';

/**
 * Request bodies for tests. Each call returns a fresh object; pass overrides for what
 * the test is about. Ids are the partner's and are chosen by the test, never seeded.
 */

/** A show in the standard model (ticket options only). */
export function showBody(showId = 'show-1', overrides: Record<string, unknown> = {}) {
  return {
    showId,
    title: `Night ${showId}`,
    date: '2026-05-01T21:00:00+02:00',
    ticketOptions: [
      { ticketId: 'opt-field', title: 'General field', description: 'Standing', currency: 'EUR', price: 45.5, area: 'Field' },
      { ticketId: 'opt-vip', title: 'VIP', description: 'Lounge access', currency: 'EUR', price: '120.00', area: 'Lounge' },
    ],
    images: [{ url: 'https://partner.example/img/poster.jpg' }],
    configuration: { redemption: { policy: 'NONE' } },
    ...overrides,
  };
}

/** A show in the price-detail model: price types with explicit combinations. */
export function priceDetailShowBody(showId = 'show-1', overrides: Record<string, unknown> = {}) {
  return showBody(showId, {
    priceTypes: [
      { priceTypeId: 'pt-early', title: 'Early bird' },
      { priceTypeId: 'pt-standard', title: 'Standard' },
    ],
    combinations: [
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 39 },
      { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
      { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 },
    ],
    ...overrides,
  });
}

/** An event with one standard show. */
export function eventBody(externalReferenceId = 'tour-2026', overrides: Record<string, unknown> = {}) {
  return {
    externalReferenceId,
    title: 'The Big Tour 2026',
    description: '<p>Rich text</p>',
    location: { city: 'Madrid', venueName: 'Arena Norte', country: 'ES', timeZone: 'Europe/Madrid' },
    configuration: { ticketDelivery: { time: { when: 'BEFORE', seconds: 10800 } } },
    shows: [showBody('show-1')],
    ...overrides,
  };
}

/** A ticket for event `tour`, show `show-1`, option `opt-field`. */
export function ticketBody(ticketId: string, overrides: Record<string, unknown> = {}) {
  return {
    externalReferenceEventId: 'tour',
    showId: 'show-1',
    buyer: 'fan@example.com',
    ticketId,
    ticketAccess: { type: 'URL', locator: `https://partner.example/qr/${ticketId}` },
    ticketOptionId: 'opt-field',
    price: 45.5,
    ...overrides,
  };
}

/** A channel listing (POST /v1/channels/listings) of two seated tickets of `tour`, show-2, option opt-field. */
export function channelListingBody(overrides: Record<string, unknown> = {}) {
  return {
    channelId: 'resellr',
    externalListingId: 'rs-1',
    externalReferenceEventId: 'tour',
    showId: 'show-2',
    ticketOptionId: 'opt-field',
    quantity: 2,
    price: 40,
    currency: 'EUR',
    seats: [
      { section: 'A', row: '1', seat: '1' },
      { section: 'A', row: '1', seat: '2' },
    ],
    sellerReference: 'seller-9',
    ...overrides,
  };
}

/** Creates event `tour` with a price-detail show `show-1` and a standard show `show-2`. */
export async function withEvent(t: TestApp, p: TestPartner, body = eventBody('tour', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] })) {
  const res = await t.request('POST', '/v1/events', { key: p.keys.private, body });
  expect(res.status).toBe(200);
}

/**
 * Turns the rotating admission codes on for an event's shows, as the operator does:
 * ticketShield on and the venue scanning rotating codes (`rotationSeconds` left to the
 * partner's, 15 s by default).
 */
export async function withRotatingCodes(t: TestApp, p: TestPartner, eventId = 'tour', rotationSeconds?: number) {
  const res = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId, status: true, admissionCodes: { venueScans: 'rotating', ...(rotationSeconds === undefined ? {} : { rotationSeconds }) } } });
  expect(res.status).toBe(200);
}

/** A partners row as stored, for tests that write the table directly (the data layer's own tests). */
export function partnerRow(id: string, name = id) {
  return { id, name, settings: {} as never, webhookSecretSealed: 'x', platformSecretSealed: null, createdAt: 1, updatedAt: 1 };
}

/**
 * A phone certified for the current holder of the partner's ticket `ticketId` (keys made with
 * WebCrypto as the ticket page's script makes them, then `AdmissionService.bind`, as the page's
 * POST does): its binding, and its code at a step, as the phone draws it.
 *
 * @example const { code } = await certifiedPhone(t, p.id, 'tk-1'); const text = await code(stepAt(t.clock.now(), 15));
 */
export async function certifiedPhone(t: TestApp, partnerId: string, ticketId: string): Promise<{ binding: Binding; code: (step: number) => Promise<string> }> {
  const keys = await generateDeviceKeys();
  const ticket = await t.deps.tickets.get(t.db, partnerId, ticketId);
  const binding = await t.db.transact(async (tx) => await t.deps.admission.bind(tx, partnerId, ticket.id, keys.publicKey));
  const tag = await importTagKey(new Uint8Array(binding.tagKey));
  return { binding, code: async (step) => await makeCode({ device: keys.privateKey, tag }, binding.certificate, step) };
}
