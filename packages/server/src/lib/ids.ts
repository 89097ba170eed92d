import { randomFillSync } from 'node:crypto';

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
  connectAccount: 'cac',
  intention: 'bi',
  payment: 'pmt',
  payout: 'po',
  riskEvaluation: 'rsk',
  riskFeedback: 'rfb',
  lead: 'ld',
  instance: 'ins',
  journal: 'jnl',
  ledgerEntry: 'le',
  consoleUser: 'cu',
  consoleMembership: 'cm',
  consoleCode: 'cc',
  consoleSession: 'cs',
  consolePasskey: 'cpk',
  consolePasskeyChallenge: 'cpc',
  audit: 'aud',
  manualLoad: 'mld',
  waitingListEntry: 'wle',
  waitingListOffer: 'wlo',
  waitingListHistory: 'wlh',
  door: 'dor',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** A new sortable, prefixed id. */
export function newId(kind: IdKind): string {
  const b = uuidV7();
  return `${ID_PREFIX[kind]}_${encodeBase32(b)}`;
}

// ------------------------------------------------------------------ generation
//
// Ingestion makes an id per ticket (100,000 in seconds), so ids are made here rather than
// with typeid-js, which builds a UUID string and parses it back before encoding it. The
// format is the same TypeID (https://github.com/jetify-com/typeid): the suffix is the
// 26-character Crockford base32 of a UUIDv7. The UUID is made the way `uuid` v10's v7()
// (typeid-js's generator) makes it: a 48-bit millisecond timestamp, then a 31-bit
// sequence seeded at random once and incremented per id (so ids of one process sort in
// creation order even within a millisecond), then 43 random bits.

const RANDOM_POOL = new Uint8Array(16 * 256);
let poolAt = RANDOM_POOL.length;

/** 16 fresh random bytes (read from the pool, refilled 256 ids at a time). */
function randomBytes(): Uint8Array {
  if (poolAt + 16 > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolAt = 0;
  }
  const r = RANDOM_POOL.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  return r;
}

let lastMs = 0;
let seqHigh = -1; // 12 bits, in rand_a
let seqLow = -1; // 19 bits, at the top of rand_b

/** @internal A UUIDv7 as 16 bytes; exported for tests. */
export function uuidV7(now: number = Date.now()): Uint8Array {
  const r = randomBytes();
  if (now > lastMs) lastMs = now;
  if (seqHigh < 0) {
    seqHigh = ((r[6]! & 0x0f) << 8) | r[7]!;
    seqLow = (((r[8]! & 0x3f) << 8) | r[9]!) * 32 + (r[10]! >>> 3);
  }
  if (now + 10_000 > lastMs) {
    if (++seqLow > 0x7ffff) {
      seqLow = 0;
      if (++seqHigh > 0xfff) {
        seqHigh = 0;
        lastMs++;
      }
    }
  } else {
    // The clock went back more than 10 s: follow it.
    lastMs = now;
  }
  const b = new Uint8Array(16);
  b[0] = (lastMs / 0x10000000000) & 0xff;
  b[1] = (lastMs / 0x100000000) & 0xff;
  b[2] = (lastMs / 0x1000000) & 0xff;
  b[3] = (lastMs / 0x10000) & 0xff;
  b[4] = (lastMs / 0x100) & 0xff;
  b[5] = lastMs & 0xff;
  b[6] = ((seqHigh >>> 4) & 0x0f) | 0x70; // version 7
  b[7] = seqHigh & 0xff;
  b[8] = ((seqLow >>> 13) & 0x3f) | 0x80; // variant 10
  b[9] = (seqLow >>> 5) & 0xff;
  b[10] = ((seqLow << 3) & 0xff) | (r[10]! & 0x07);
  b[11] = r[11]!;
  b[12] = r[12]!;
  b[13] = r[13]!;
  b[14] = r[14]!;
  b[15] = r[15]!;
  return b;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** @internal The 26-character TypeID suffix of 16 bytes (Crockford base32, lowercase); exported for tests. */
export function encodeBase32(s: Uint8Array): string {
  const a = ALPHABET;
  return (
    a[(s[0]! & 224) >> 5]! +
    a[s[0]! & 31]! +
    a[(s[1]! & 248) >> 3]! +
    a[((s[1]! & 7) << 2) | ((s[2]! & 192) >> 6)]! +
    a[(s[2]! & 62) >> 1]! +
    a[((s[2]! & 1) << 4) | ((s[3]! & 240) >> 4)]! +
    a[((s[3]! & 15) << 1) | ((s[4]! & 128) >> 7)]! +
    a[(s[4]! & 124) >> 2]! +
    a[((s[4]! & 3) << 3) | ((s[5]! & 224) >> 5)]! +
    a[s[5]! & 31]! +
    a[(s[6]! & 248) >> 3]! +
    a[((s[6]! & 7) << 2) | ((s[7]! & 192) >> 6)]! +
    a[(s[7]! & 62) >> 1]! +
    a[((s[7]! & 1) << 4) | ((s[8]! & 240) >> 4)]! +
    a[((s[8]! & 15) << 1) | ((s[9]! & 128) >> 7)]! +
    a[(s[9]! & 124) >> 2]! +
    a[((s[9]! & 3) << 3) | ((s[10]! & 224) >> 5)]! +
    a[s[10]! & 31]! +
    a[(s[11]! & 248) >> 3]! +
    a[((s[11]! & 7) << 2) | ((s[12]! & 192) >> 6)]! +
    a[(s[12]! & 62) >> 1]! +
    a[((s[12]! & 1) << 4) | ((s[13]! & 240) >> 4)]! +
    a[((s[13]! & 15) << 1) | ((s[14]! & 128) >> 7)]! +
    a[(s[14]! & 124) >> 2]! +
    a[((s[14]! & 3) << 3) | ((s[15]! & 224) >> 5)]! +
    a[s[15]! & 31]!
  );
}
