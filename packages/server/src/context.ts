import type { ChannelsService } from './modules/channels/channels.service.js';
import type { Logger } from 'pino';
import type { Db } from './db/client.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/crypto.js';
import type { DomainEvents } from './lib/domain-events.js';
import type { IdempotencyHandle } from './middleware/idempotency.js';
import type { RateLimiter } from './middleware/rate-limit.js';
import type { TrustProxy } from './middleware/client-address.js';
import type { Authenticated, PartnersService } from './modules/partners/partners.service.js';
import type { EventsService } from './modules/events/events.service.js';
import type { TicketsService } from './modules/tickets/tickets.service.js';
import type { TicketsIngest } from './modules/tickets/tickets.ingest.js';
import type { UsersService } from './modules/users/users.service.js';
import type { RulesService } from './modules/rules/rules.service.js';
import type { WebhooksService } from './modules/webhooks/webhooks.service.js';
import type { MessagesService } from './modules/email/email.service.js';
import type { ListingsService } from './modules/listings/listings.service.js';
import type { AuthService } from './modules/auth/auth.service.js';
import type { IntentionsService } from './modules/intentions/intentions.service.js';
import type { PaymentsService } from './modules/payments/payments.service.js';
import type { RiskService } from './modules/risk/risk.service.js';
import type { PayoutsService } from './modules/payouts/payouts.service.js';
import type { InstanceLease } from './modules/instances/instances.service.js';
import type { Metrics } from './modules/metrics/metrics.service.js';
import type { LedgerService } from './modules/ledger/ledger.service.js';

/** Settings of the running service (from the environment, see env.ts). */
export interface AppConfig {
  env: 'production' | 'development' | 'test';
  /** Host of every URL the service generates, without a trailing slash. */
  publicBaseUrl: string;
  /** Bearer token of the operator API; null disables it. */
  operatorToken: string | null;
  maxBodyBytes: number;
  /** Default per-partner limit of the whole API, per minute. */
  rateLimitPerMinute: number;
  /** SMTP transport URL; null keeps messages in the development mailbox. */
  smtpUrl: string | null;
  /** From address of e-mails. */
  mailFrom: string;
  // The three below are optional so that tools that build a config by hand (the import CLI,
  // the benchmarks) keep compiling and get the safe defaults.
  /**
   * Which peers may tell the client's address in `X-Forwarded-For` (`TRUST_PROXY`): a hop
   * count, or addresses/CIDRs/keywords as proxy-addr takes them. Absent, 0 or empty: nobody,
   * the socket's peer is the client (see middleware/client-address.ts).
   */
  trustProxy?: TrustProxy | undefined;
  /** Requests per minute to hosted pages per client address; 0 disables. Absent: 300. */
  pageRateLimitPerMinute?: number | undefined;
  /** POSTs per minute to hosted pages per client address, on top of the above; 0 disables. Absent: 60. */
  pagePostRateLimitPerMinute?: number | undefined;
  /**
   * Bearer token of `GET /metrics` (`METRICS_TOKEN`); absent or null: `operatorToken` serves.
   * Optional like the three above, for configs built by hand.
   */
  metricsToken?: string | null | undefined;
}

/** Everything the app needs, passed in (never imported singletons). */
export interface AppDeps {
  db: Db;
  clock: Clock;
  config: AppConfig;
  logger: Logger;
  box: SecretBox;
  bus: DomainEvents;
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
  payments: PaymentsService;
  payouts: PayoutsService;
  /** The ledger of money movements (modules/ledger): posted to in the transaction of each change. */
  ledger: LedgerService;
  risk: RiskService;
  channels: ChannelsService;
  /** The Prometheus registry of this app and its counters (GET /metrics; modules count through it). */
  metrics: Metrics;
  /** This process's lease: what it claims can be taken over once the lease lapses (a crash). */
  instance: InstanceLease;
}

/** Hono environment of every router. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The client's address as the client-address middleware resolved it (`unknown` without a socket). */
    clientAddress: string;
    /** Set by the key middleware on partner routes. */
    auth: Authenticated;
    /** Set by the idempotency middleware when the request carries a claimed Idempotency-Key. */
    idempotency?: IdempotencyHandle;
  };
}
