import { expect } from 'vitest';
import type { Stack } from './stack.js';
import type { MailboxMessage, Steps } from './steps.js';

/**
 * Steps of the waiting-list journey (waitinglist.test.ts): the organiser's settings and a fan's
 * entries through the partner API, the offer e-mails from the development mailbox, and the
 * service's clock moved forward instead of waiting for an offer to run out.
 */

/** A waiting-list entry as `GET /v1/waitinglist/entries` answers it (the fields the journey reads). */
export interface WaitingListEntry {
  id: string;
  state: 'WAITING' | 'OFFERED' | 'CONVERTED' | 'EXPIRED' | 'DECLINED' | 'LEFT' | 'CLOSED';
  position: number | null;
  quantity: number;
  user: { id: string | null; email: string | null; phone: string | null };
  offer: { id: string; state: string; intentionId: string; listingIds: string[]; quantity: number; expiresAt: string; checkoutUrl: string } | null;
  endReason: string | null;
}

/**
 * The service's clock, moved forward on demand: the stack's service adds `shift()` to its clock
 * at every reading (`clockShift`, main.ts), so every time-dependent rule of the service (holds,
 * offers, sessions, the outbox's due times) reads the moved time. The jobs' timers keep real
 * time and find the moved time when they run. Moving forward only, as time does.
 */
export function movableClock() {
  let offsetMs = 0;
  return {
    /** What the stack's service adds to its clock (pass as `providers.clockShift`). */
    shift: (): number => offsetMs,
    /** The service's time now. */
    now: (): number => Date.now() + offsetMs,
    /** Moves the service's time `ms` milliseconds forward. */
    advance(ms: number): void {
      expect(ms, 'the clock only moves forward').toBeGreaterThan(0);
      offsetMs += ms;
    },
  };
}

/** The waiting-list steps, bound to the running stack and the shared steps. */
export function waitingListSteps(stackOf: () => Stack, { mailbox }: Pick<Steps, 'mailbox'>) {
  /** The organiser turns the show's list on (`PUT /v1/waitinglist/settings`, private key). */
  async function enable(show: { eventId: string; showId: string }, offerMinutes: number) {
    const res = await stackOf().api('PUT', '/v1/waitinglist/settings', { externalReferenceEventId: show.eventId, showId: show.showId, enabled: true, offerMinutes, priceCap: 'RULES' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { enabled: boolean; offerMinutes: number; waiting: number; updatedAt: string | null };
  }

  /** The fan's entry for the show (`GET /v1/waitinglist/entries`), the newest; fails when they have none. */
  async function entryOf(email: string, show: { eventId: string; showId: string }): Promise<WaitingListEntry> {
    const q = new URLSearchParams({ user: email, externalReferenceEventId: show.eventId, showId: show.showId });
    const res = await stackOf().api('GET', `/v1/waitinglist/entries?${q}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = res.body.data as WaitingListEntry[];
    expect(entries.length, `${email} has an entry for ${show.showId}`).toBeGreaterThan(0);
    return entries[0]!;
  }

  /** The ids of the messages `email` has now, to tell the next ones apart. */
  async function seen(email: string): Promise<Set<string>> {
    return new Set((await mailbox(email)).map((m) => m.id));
  }

  /**
   * Waits for a new `waitingListOffer` e-mail to `email` (one not in `before`) and answers it
   * with its checkout link (the one-time sign-in link to the held tickets).
   */
  async function offerMail(email: string, before: ReadonlySet<string>): Promise<{ message: MailboxMessage; link: string }> {
    let message: MailboxMessage | undefined;
    await expect
      .poll(async () => {
        message = (await mailbox(email)).find((m) => !before.has(m.id) && m.template === 'waitingListOffer');
        return message !== undefined;
      }, { timeout: 20_000, interval: 250 })
      .toBe(true);
    expect(message!.channel).toBe('email');
    const link = new RegExp(`${stackOf().serviceUrl.replace(/[.]/g, '\\.')}/checkout/ptr_[^\\s)>"]+`).exec(message!.text)?.[0];
    expect(link, message!.text).toBeDefined();
    return { message: message!, link: link! };
  }

  /** The `waitingListOffer` e-mails `email` received, oldest first. */
  async function offerMails(email: string): Promise<MailboxMessage[]> {
    return (await mailbox(email)).filter((m) => m.template === 'waitingListOffer').reverse();
  }

  return { enable, entryOf, seen, offerMail, offerMails };
}
