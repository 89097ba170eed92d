import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The demo platform's own database: users, events, tickets and the webhooks it received,
 * kept in one JSON file. The platform is the source of truth for who owns which ticket (the
 * service asks it through the ownership endpoint), so this file is what makes a restart
 * consistent: a resale that moved a ticket to its buyer stays moved.
 *
 * Writes replace the file atomically (write a sibling, then rename), so a crash mid-write
 * leaves the previous state, never half a file. One process owns the file.
 */

export interface DemoUser {
  /** The platform's user id (`u-ana`). */
  id: string;
  name: string;
  /** Lower case; the identity given to the service (Login Trust, ticket buyer, one-time tokens). */
  email: string;
}

export interface DemoTicketOption {
  /** The ticket option id (`ticketId` in event payloads, `ticketOptionId` elsewhere). */
  id: string;
  title: string;
  description: string;
  /** The zone of the seating chart (`data-area` in the SVG). */
  area: string;
  /** Face value in major units, without fees. */
  price: number;
}

export interface DemoEvent {
  /** The partner's event id (`externalReferenceId`). */
  id: string;
  /** The event's only show. */
  showId: string;
  /** The show's own title (the hosted pages print "event · show"). */
  showTitle: string;
  title: string;
  description: string;
  /** Start of the show, ISO 8601 UTC. */
  date: string;
  venue: string;
  address: string;
  city: string;
  country: string;
  timeZone: string;
  currency: string;
  /** The one price type every ticket option combines with (`standard`). */
  priceTypeId: string;
  options: DemoTicketOption[];
  /** Seating chart (seated events only), drawn with the chart convention: `data-area`, `data-section`/`data-row`/`data-seat`. */
  svg: string | null;
}

export interface DemoTicket {
  ticketId: string;
  eventId: string;
  showId: string;
  ticketOptionId: string;
  priceTypeId: string;
  /** The current holder (a DemoUser id). */
  ownerId: string;
  /** The order that collects the ticket (will-call number); a resale gives the buyer a new one. */
  orderId: string;
  /** What the holder paid, major units. */
  paidPrice: number;
  currency: string;
  section: string | null;
  row: string | null;
  seat: string | null;
  /** The access code (sent as `ticketAccess {type: OTHER, locator: code}`). */
  code: string;
  /** Set when the ticket reached its holder through a resale (`fromOrderId`: the order it left; missing in older state files). */
  resale: { resaleId: string; at: string; fromUserId: string; fromOrderId?: string } | null;
}

/** One POST received on /webhooks, whatever its verdict. */
export interface WebhookDelivery {
  /** The `webhook-id` header (null when missing). */
  id: string | null;
  /** The `action` of the body when it could be read (`ticket.update`). */
  type: string | null;
  receivedAt: string;
  verified: boolean;
  /** What happened: `applied`, `duplicate`, `ignored`, or why it was rejected. */
  verdict: string;
  /** The raw body as received (at most {@link MAX_STORED_BODY} characters). */
  body: string;
}

export interface DemoState {
  version: 1;
  /** When the catalog was created and pushed to the service; null until seeding succeeded. */
  seededAt: string | null;
  users: DemoUser[];
  events: DemoEvent[];
  tickets: DemoTicket[];
  /** Newest first, at most {@link MAX_WEBHOOKS}. */
  webhooks: WebhookDelivery[];
  /** `webhook-id`s already applied: a retried or replayed message changes nothing. */
  appliedWebhookIds: string[];
}

export const MAX_WEBHOOKS = 200;
export const MAX_STORED_BODY = 64 * 1024;
const MAX_APPLIED_IDS = 5_000;

export function emptyState(): DemoState {
  return { version: 1, seededAt: null, users: [], events: [], tickets: [], webhooks: [], appliedWebhookIds: [] };
}

/** The state file, loaded once and saved after every change. */
export class DemoStore {
  private constructor(
    readonly path: string,
    public state: DemoState,
  ) {}

  /** Opens `path`, or starts empty when it does not exist yet. A file that is not a demo state stops the start. */
  static open(path: string): DemoStore {
    let text: string | null = null;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === null) return new DemoStore(path, emptyState());
    const parsed = JSON.parse(text) as Partial<DemoState>;
    if (parsed.version !== 1 || !Array.isArray(parsed.users) || !Array.isArray(parsed.tickets)) {
      throw new Error(`${path} is not a demo state file (delete it to start afresh)`);
    }
    return new DemoStore(path, { ...emptyState(), ...parsed } as DemoState);
  }

  save(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 2));
    renameSync(tmp, this.path);
  }

  /** A user by id or e-mail (case-insensitive), as the service may ask either. */
  findUser(idOrEmail: string): DemoUser | undefined {
    const key = idOrEmail.trim().toLowerCase();
    return this.state.users.find((u) => u.id.toLowerCase() === key || u.email === key);
  }

  event(id: string): DemoEvent | undefined {
    return this.state.events.find((e) => e.id === id);
  }

  /** The tickets a user holds now, in catalog order. */
  ticketsOf(userId: string): DemoTicket[] {
    return this.state.tickets.filter((t) => t.ownerId === userId);
  }

  ticket(ticketId: string): DemoTicket | undefined {
    return this.state.tickets.find((t) => t.ticketId === ticketId);
  }

  /** Records a delivery (newest first, capped) and remembers an applied id. Saves. */
  recordWebhook(delivery: WebhookDelivery, appliedId?: string): void {
    this.state.webhooks.unshift({ ...delivery, body: delivery.body.slice(0, MAX_STORED_BODY) });
    this.state.webhooks.length = Math.min(this.state.webhooks.length, MAX_WEBHOOKS);
    if (appliedId) {
      this.state.appliedWebhookIds.push(appliedId);
      if (this.state.appliedWebhookIds.length > MAX_APPLIED_IDS) this.state.appliedWebhookIds.splice(0, this.state.appliedWebhookIds.length - MAX_APPLIED_IDS);
    }
    this.save();
  }
}
