/** Barrel of every table, for drizzle-kit and the typed client. */
export * from '../modules/partners/partners.table.js';
export * from '../middleware/idempotency.table.js';
export * from '../modules/events/events.table.js';
export * from '../modules/rules/rules.table.js';
export * from '../modules/feeds/feeds.table.js';
export * from '../modules/users/users.table.js';
export * from '../modules/auth/auth.table.js';
export * from '../modules/webhooks/webhooks.table.js';
export * from '../modules/email/email.table.js';
export * from '../modules/tickets/tickets.table.js';
export * from '../modules/listings/listings.table.js';
export * from '../modules/payouts/payouts.table.js';
export * from '../modules/intentions/intentions.table.js';
export * from '../modules/payments/payments.table.js';
export * from '../modules/risk/risk.table.js';
export * from '../modules/marketdata/marketdata.table.js';
