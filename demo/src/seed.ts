import { createCatalog } from './catalog.js';
import { eventPayload, ticketPayload } from './records.js';
import { ServiceError, type ServiceClient } from './service-client.js';
import type { DemoStore } from './store.js';

/**
 * Seeding on start, as a partner's integration would push its catalog:
 *
 * 1. A fresh state file gets the catalog (users, events, tickets), saved at once so the
 *    dates chosen now stay the same on later starts.
 * 2. Every start upserts the events (`POST /v1/events`, or `PUT` when it exists), so a
 *    service with a fresh database learns them again. An event whose show is less than a
 *    week away is moved forward by four weeks first, so a demo left for months still works.
 * 3. Only the first successful start pushes the tickets (`POST /v1/sync/tickets`), then
 *    marks the state seeded: a restart never hands resold tickets back to their sellers.
 *    (Were the service's database deleted later, tickets it does not know come back with
 *    `sync: false` and the sell flow synchronises them from the ownership endpoint.)
 *
 * Retryable failures (the service still starting: network errors, 5xx, 429) are tried again
 * a few times with a growing pause; anything else stops at once.
 */

const WEEK_MS = 7 * 86_400_000;

export interface SeedOptions {
  store: DemoStore;
  service: ServiceClient;
  now: () => Date;
  /** Tries per call. Default 8 (about 10 s in all). */
  attempts?: number;
  /** First pause between tries, doubled each time up to 2 s. Default 250 ms. */
  retryDelayMs?: number;
}

export interface SeedReport {
  events: { id: string; outcome: 'created' | 'updated' }[];
  /** Tickets pushed now (0 on later starts). */
  ticketsPushed: number;
}

export async function seed(opts: SeedOptions): Promise<SeedReport> {
  const { store, service } = opts;
  const state = store.state;
  const now = opts.now();
  if (state.events.length === 0) {
    Object.assign(state, createCatalog(now));
    store.save();
  }
  let moved = false;
  for (const event of state.events) {
    let at = Date.parse(event.date);
    while (at - now.getTime() < WEEK_MS) at += 4 * WEEK_MS;
    if (at !== Date.parse(event.date)) {
      event.date = new Date(at).toISOString();
      moved = true;
    }
  }
  if (moved) store.save();

  const retry = <T>(fn: () => Promise<T>) => withRetry(fn, opts.attempts ?? 8, opts.retryDelayMs ?? 250);
  const report: SeedReport = { events: [], ticketsPushed: 0 };
  for (const event of state.events) {
    report.events.push({ id: event.id, outcome: await retry(() => service.upsertEvent(eventPayload(event))) });
  }
  if (!state.seededAt) {
    const items = state.tickets.map((t) => {
      const owner = state.users.find((u) => u.id === t.ownerId);
      if (!owner) throw new Error(`ticket ${t.ticketId} has no known owner ${t.ownerId}`);
      return ticketPayload(t, owner);
    });
    if (items.length > 0) await retry(() => service.syncTickets(items));
    report.ticketsPushed = items.length;
    state.seededAt = opts.now().toISOString();
    store.save();
  }
  return report;
}

/** Runs `fn` until it succeeds, a non-retryable error is thrown, or `attempts` are spent. */
export async function withRetry<T>(fn: () => Promise<T>, attempts: number, firstDelayMs: number): Promise<T> {
  let delay = firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !(err instanceof ServiceError) || !err.retryable) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 2_000);
    }
  }
}
