import { expect } from 'vitest';
import { consoleSteps } from './console.steps.js';
import { TEST_KEYS, type Stack } from './stack.js';

/**
 * Steps of the rotating code's journeys (ticket-code.test.ts, and the screenshots' walk): a
 * show with the rotating codes on, set up through the partner API and the operator's switch,
 * and tickets of it with the links to their secure views.
 */

/** The partner's event of the journeys (one show, `night-1`). */
export const EVENT = 'gate-night';

/** The steps, bound to the running stack. */
export function ticketCodeSteps(stackOf: () => Stack) {
  const { sandboxId } = consoleSteps(stackOf);
  /** A show two hours from now (its QR unlocked: the partner's default is three hours before), with rotating codes on. */
  async function rotatingShow(): Promise<void> {
    const date = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const created = await stackOf().api('POST', '/v1/events', {
      externalReferenceId: EVENT,
      title: 'Gate Night',
      description: 'A night at the gate',
      location: { venueName: 'Sala Norte', city: 'Madrid', timeZone: 'Europe/Madrid' },
      configuration: {},
      shows: [{ showId: 'night-1', title: 'Night', date, images: [], configuration: {}, ticketOptions: [{ ticketId: 'floor', title: 'Floor', description: 'Standing', currency: 'EUR', price: 40 }] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const switched = await fetch(`${stackOf().serviceUrl}/admin/v1/partners/${await sandboxId()}/ticketShield`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_KEYS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventId: EVENT, status: true, admissionCodes: { venueScans: 'rotating' } }),
    });
    expect(switched.status).toBe(200);
  }

  /** A ticket of the show for `email` (at `seat`, else standing), its partner's own QR `STATIC-<id>`, and the link to its secure view. */
  async function ticketFor(id: string, email: string, seat: { section: string; row: string; seat: string } | null = null): Promise<string> {
    const synced = await stackOf().api('POST', '/v1/sync/tickets', [{ externalReferenceEventId: EVENT, showId: 'night-1', buyer: email, ticketId: id, ticketAccess: { type: 'OTHER', locator: `STATIC-${id}` }, ticketOptionId: 'floor', price: 40, ...seat }]);
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    return await viewUrl(id);
  }

  async function viewUrl(id: string): Promise<string> {
    const res = await stackOf().api('GET', `/v1/tickets/${id}/url`);
    expect(res.status).toBe(200);
    return res.body.data as string;
  }

  return { rotatingShow, ticketFor, viewUrl };
}
