import { typeid } from 'typeid-js';

/**
 * Prefixes of the service's own ids. Ids are TypeIDs (`evt_01jd…`): a prefix, then a
 * UUIDv7 in Crockford base32, so they sort by creation time and say what they name.
 * The partner's ids are stored as given and never mixed with these.
 */
export const ID_PREFIX = {
  partner: 'ptr',
  apiKey: 'key',
  event: 'evt',
  show: 'shw',
  ticketOption: 'opt',
  priceType: 'prt',
  combination: 'cmb',
  rule: 'rul',
  feedRun: 'frn',
  user: 'usr',
  oneTimeToken: 'ott',
  session: 'ses',
  otp: 'otp',
  webhookMessage: 'msg',
  webhookAttempt: 'att',
  message: 'eml',
  ticket: 'tkt',
  ticketJob: 'job',
  listing: 'lst',
  payoutAccount: 'pac',
  intention: 'bi',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** A new sortable, prefixed id. */
export function newId(kind: IdKind): string {
  return typeid(ID_PREFIX[kind]).toString();
}
