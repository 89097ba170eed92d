import type { ChannelsService } from './domain/channels/channels.service.js';
import type { GroupCommit } from './db/group-commit.js';
import type { Kernel } from './lib/kernel.js';
import type { IdempotencyHandle } from './domain/idempotency/idempotency.store.js';
import type { RateLimiter } from './http/middleware/rate-limit.js';
import type { Authenticated, PartnersService } from './domain/partners/partners.service.js';
import type { EventsService } from './domain/events/events.service.js';
import type { TicketsService } from './domain/tickets/tickets.service.js';
import type { TicketsIngest } from './domain/tickets/tickets.ingest.js';
import type { UsersService } from './domain/users/users.service.js';
import type { RulesService } from './domain/rules/rules.service.js';
import type { WebhooksService } from './domain/webhooks/webhooks.service.js';
import type { MessagesService } from './domain/email/email.service.js';
import type { ListingsService } from './domain/listings/listings.service.js';
import type { AuthService } from './domain/auth/auth.service.js';
import type { IntentionsService } from './domain/intentions/intentions.service.js';
import type { PaymentsService } from './domain/payments/payments.service.js';
import type { RiskService } from './domain/risk/risk.service.js';
import type { PayoutsService } from './domain/payouts/payouts.service.js';
import type { InstanceLease } from './domain/instances/instances.service.js';
import type { Metrics } from './domain/metrics/metrics.service.js';
import type { LedgerService } from './domain/ledger/ledger.service.js';
import type { AuditService } from './domain/audit/audit.service.js';
import type { LeadsService } from './domain/marketdata/leads.service.js';
import type { AdmissionService } from './domain/admission/admission.service.js';
import type { DoorsService, OpenedDoor } from './domain/admission/admission.doors.js';
import type { WaitingListService } from './domain/waitinglist/waitinglist.service.js';
import type { ConsoleService } from './domain/console/console.service.js';

/** Everything the app needs, passed in (never imported singletons). */
export interface AppDeps extends Kernel {
  rateLimiter: RateLimiter;
  partners: PartnersService;
  events: EventsService;
  rules: RulesService;
  users: UsersService;
  tickets: TicketsService;
  /** The ingestion queue of POST /v1/tickets (jobs), applied through `tickets`. */
  ticketsIngest: TicketsIngest;
  webhooks: WebhooksService;
  messages: MessagesService;
  listings: ListingsService;
  auth: AuthService;
  intentions: IntentionsService;
  /** Buy attempts' transactions: in groups, one durable commit per group, on SQLite with SQLITE_GROUP_COMMIT; else one transaction each (db/group-commit.ts). */
  reservations: GroupCommit;
  payments: PaymentsService;
  payouts: PayoutsService;
  /** The ledger of money movements (domain/ledger): posted to in the transaction of each change. */
  ledger: LedgerService;
  risk: RiskService;
  channels: ChannelsService;
  /** The Prometheus registry of this app and its counters (GET /metrics; modules count through it). */
  metrics: Metrics;
  /** This process's lease: what it claims can be taken over once the lease lapses (a crash). */
  instance: InstanceLease;
  /** The audit log of changes made in the console and through /admin/v1 (domain/audit). */
  audit: AuditService;
  /** Fans' waiting lists per show. */
  waitingList: WaitingListService;
  /** Rotating admission codes: phones certified for tickets, scans checked (domain/admission). */
  admission: AdmissionService;
  /** The doors of shows: links that open the venue's scanner page for one show (domain/admission). */
  doors: DoorsService;
  /** Leads (wishlist, market data) partners send and fans leave (domain/marketdata). */
  leads: LeadsService;
  /** The console's people, roles, codes and sessions (domain/console). */
  consoleAccess: ConsoleService;
}

/** Hono environment of every router. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The client's address as the client-address middleware resolved it (`unknown` without a socket). */
    clientAddress: string;
    /** Set by the key middleware on partner routes. */
    auth: Authenticated;
    /** Set by the door middleware on the door API (/v1/door): the door its token opened. */
    door: OpenedDoor;
    /** Set by the idempotency middleware when the request carries a claimed Idempotency-Key. */
    idempotency?: IdempotencyHandle;
  };
}
