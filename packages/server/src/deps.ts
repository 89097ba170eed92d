import type { Logger } from 'pino';
import type { AppConfig } from './lib/config.js';
import type { AppDeps } from './context.js';
import type { Db } from './db/client.js';
import type { Clock } from './lib/clock.js';
import { SecretBox } from './lib/crypto.js';
import { DomainEvents } from './lib/domain-events.js';
import { createRateLimiter } from './http/middleware/rate-limit.js';
import { InstanceLease } from './domain/instances/instances.service.js';
import { EventsService } from './domain/events/events.service.js';
import { PartnersService } from './domain/partners/partners.service.js';
import { RulesService } from './domain/rules/rules.service.js';
import { TicketsService } from './domain/tickets/tickets.service.js';
import { TicketsIngest } from './domain/tickets/tickets.ingest.js';
import { UsersService } from './domain/users/users.service.js';
import { WebhooksService } from './domain/webhooks/webhooks.service.js';
import { createMessagesService } from './domain/email/email.service.js';
import { ListingsService } from './domain/listings/listings.service.js';
import { AuthService } from './domain/auth/auth.service.js';
import { AuditService } from './domain/audit/audit.service.js';
import { WaitingListService } from './domain/waitinglist/waitinglist.service.js';
import { LeadsService } from './domain/marketdata/leads.service.js';
import { AdmissionService } from './domain/admission/admission.service.js';
import { DoorsService } from './domain/admission/admission.doors.js';
import { ConsoleService, relyingPartyOf } from './domain/console/console.service.js';
import { IntentionsService } from './domain/intentions/intentions.service.js';
import { PaymentsService } from './domain/payments/payments.service.js';
import { SandboxProvider, type PaymentProvider } from './domain/payments/payments.provider.js';
import { RiskService } from './domain/risk/risk.service.js';
import { ChannelsService } from './domain/channels/channels.service.js';
import { PayoutsService } from './domain/payouts/payouts.service.js';
import { ConnectAccounts } from './domain/payouts/payouts.connect.js';
import type { PayoutProvider } from './domain/payouts/payouts.provider.js';
import { LedgerService } from './domain/ledger/ledger.service.js';
import { wireReactions } from './flows/reactions.js';
import { Metrics } from './domain/metrics/metrics.service.js';
import { instrumentDb } from './domain/metrics/metrics.db.js';
import { GroupCommit } from './db/group-commit.js';
import { ENGINE } from './db/engine.js';

/** Wires the services together. Used by main.ts and by tests alike. */
export function buildDeps(opts: { db: Db; clock: Clock; config: AppConfig; logger: Logger; secretKey: string; paymentProvider?: PaymentProvider | undefined; payoutProvider?: PayoutProvider | undefined }): AppDeps {
  const box = new SecretBox(opts.secretKey);
  const bus = new DomainEvents();
  // A registry of its own per dependency set (never prom-client's global one); the root db.transact
  // and db.read are timed, and their handles count "when it commits" (domain/metrics/metrics.db.ts).
  const metrics = new Metrics({ db: opts.db, clock: opts.clock, logger: opts.logger });
  instrumentDb(opts.db, metrics);
  const events = new EventsService({ db: opts.db, clock: opts.clock, bus });
  const users = new UsersService({ clock: opts.clock });
  const partners = new PartnersService({ db: opts.db, clock: opts.clock, box, bus });
  const rules = new RulesService({ clock: opts.clock, events });
  const webhooks = new WebhooksService({ db: opts.db, clock: opts.clock, partners, logger: opts.logger, metrics });
  const messages = createMessagesService({ db: opts.db, clock: opts.clock, config: opts.config, logger: opts.logger });
  const tickets = new TicketsService({ clock: opts.clock, bus, events, users });
  const listings = new ListingsService({ ...opts, bus, events, rules, webhooks, messages, tickets });
  const intentions = new IntentionsService({ ...opts, bus, listings, metrics });
  const ledger = new LedgerService({ clock: opts.clock });
  const auth = new AuthService({ db: opts.db, clock: opts.clock, box, partners, users, messages });
  // Sellers' connected accounts at the payout provider (Stripe Connect); null: the sandbox's IBANs.
  const connect = opts.payoutProvider ? new ConnectAccounts({ db: opts.db, clock: opts.clock, auth, users, messages }, opts.payoutProvider) : null;
  const deps: AppDeps = {
    ...opts,
    box,
    bus,
    metrics,
    rateLimiter: createRateLimiter(opts),
    instance: new InstanceLease(opts.clock),
    partners,
    events,
    rules,
    users,
    tickets,
    ticketsIngest: new TicketsIngest({ db: opts.db, clock: opts.clock, tickets }),
    webhooks,
    messages,
    listings,
    intentions,
    // Grouped on SQLite when configured (SQLITE_GROUP_COMMIT); PostgreSQL never groups.
    reservations: new GroupCommit(opts.db, undefined, ENGINE === 'sqlite' && opts.config.groupCommit === true),
    risk: new RiskService(opts),
    channels: new ChannelsService({ ...opts, events, tickets, listings }),
    ledger,
    // Stripe when it is configured (main.ts), else the sandbox (its test cards, no account needed).
    payments: new PaymentsService({ ...opts, messages, ledger }, opts.paymentProvider ?? new SandboxProvider(() => opts.clock.now())),
    payouts: new PayoutsService({ ...opts, webhooks, ledger }, connect),
    auth,
    audit: new AuditService({ clock: opts.clock }),
    waitingList: new WaitingListService({ clock: opts.clock, bus, events }),
    leads: new LeadsService({ clock: opts.clock, events }),
    admission: new AdmissionService({ clock: opts.clock, box, tickets }),
    doors: new DoorsService({ clock: opts.clock }),
    // The console's passkeys belong to the host of PUBLIC_BASE_URL (WebAuthn's RP ID and origin).
    consoleAccess: new ConsoleService({ clock: opts.clock, box, messages, relyingParty: relyingPartyOf(opts.config.publicBaseUrl) }),
  };
  // Every reaction of one module to another's change, in one place (flows/reactions.ts).
  wireReactions(deps);
  return deps;
}
