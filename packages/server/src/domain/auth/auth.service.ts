import type { Lang } from '@resale/shared/lang';
import { and, desc, eq, gt, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { createHmac, randomInt } from 'node:crypto';
import { z } from 'zod';
import { affected } from '../../db/affected.js';
import { serializeOn } from '../../db/dialect.js';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { hashSecret, randomToken, type SecretBox } from '../../lib/crypto.js';
import { ApiError, type ErrorLocation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { MessagesService } from '../email/email.service.js';

import { normalizeEmail, normalizePhone, type UserIdentity, type UserRow, type UsersService } from '../users/users.service.js';
import { oneTimeTokens, otpCodes, sessions } from './auth.table.js';
import { partnerOf } from '../partners/partners.queries.js';
import type { Kernel } from '../../lib/kernel.js';
import type { PartnersService } from '../partners/partners.service.js';

/**
 * Authentication of people on the hosted pages: one-time tokens (Login Trust, Login Force,
 * smart publish), sessions, and the one-time-password fallback. No HTTP here (see
 * auth.session.tsx for cookies, CSRF and redirects, auth.pages.tsx for the pages).
 *
 * Secrets are random and stored only as SHA-256 hashes (tokens, session cookies) or as an
 * HMAC under the server key salted with the row id (one-time passwords: six digits are
 * too few for a plain hash). Every "use once" is a conditional update, so two requests
 * racing for the same token or code cannot both win.
 */

/** Bits of randomness of one-time tokens and session cookies (base62, 43 characters). */
export const TOKEN_BITS = 256;

const TOKEN_ROWS_PER_INSERT = 500;

/** Tokens minted now and stored together; see {@link AuthService.tokenBatch}. */
export interface TokenBatch {
  /** A fresh single-use token (usable once written). */
  mint(): string;
  /** Stores the tokens minted since the last write. */
  write(tx: Tx): Promise<void>;
}
/** Longest token we bother hashing; anything longer is unknown. */
const MAX_TOKEN_LENGTH = 200;

/** Sessions last 12 hours from sign-in (no sliding renewal). */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/**
 * How long a proof by one-time code (sign-in by code, or a step-up) counts for changes to money
 * destinations: after that, or in a session that began from a one-time token in a URL, the
 * page asks for a fresh code first.
 *
 * Two hours: long enough that a seller who proved their code once sets their payout details,
 * publishes and comes back from My tickets in one sitting without a second code (a new token
 * of the same person keeps the session, see auth.session.tsx), as GitHub's "sudo mode" lasts
 * two hours. Safe because the proof is bound to this session (an HttpOnly, SameSite cookie of
 * 12 hours at most), which only the person who received the code started or stepped up; a
 * forwarded link starts a session of its own, which is never stepped up.
 */
export const STEP_UP_TTL_MS = 2 * 60 * 60_000;

/** A one-time password expires 10 minutes after it is sent. */
export const OTP_TTL_MS = 10 * 60_000;
/** Wrong guesses a code survives; the 5th wrong one kills it. */
export const OTP_MAX_ATTEMPTS = 5;

/** Limits of one-time-password requests (sending a code) and of code guesses. */
export const OTP_LIMITS = {
  /** Codes sent to one e-mail or phone of a partner, counted in the database. */
  perIdentifier: { limit: 5, windowMs: 15 * 60_000 },
  /** …and per day, so guessing cannot go on slowly forever. */
  perIdentifierDaily: { limit: 20, windowMs: 24 * 60 * 60_000 },
  /** Code requests from one client address (any identifier, any partner), counted in the database. */
  perIp: { limit: 20, windowMs: 15 * 60_000 },
  /** Code submissions from one client address, per minute (the shared RateLimiter). */
  verifyPerIpPerMinute: 30,
} as const;

/**
 * How `user` of GET /v1/auth/oneTimeToken is read:
 * - `email`: an e-mail address;
 * - `phone`: a phone number in international format (`+34600111222`);
 * - `id`: the partner's user id, as sent.
 * Without `method`: an e-mail when it contains `@`, a phone when it starts with `+`,
 * otherwise the partner's user id.
 */
export const USER_METHODS = ['email', 'phone', 'id'] as const;
export type UserMethod = (typeof USER_METHODS)[number];

/** A session of the hosted pages, as the pages see it. */
export interface SessionData {
  id: string;
  partnerId: string;
  /** The user's service id (`usr_…`). */
  userPk: string;
  /** Per-session secret of the CSRF synchronizer tokens. */
  csrfSecret: string;
  expiresAt: number;
  /** When the user last proved a one-time code in this session; null when never (see {@link STEP_UP_TTL_MS}). */
  steppedUpAt: number | null;
}

/** What asking for a step-up code gave. */
export type StepUpRequest = OtpRequestResult | { ok: false; reason: 'no_contact' };

/** What redeeming a one-time token gave. A foreign token reads as `unknown`. */
export type Redemption =
  | { ok: true; partnerId: string; userPk: string; purpose: string }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'used' | 'expired'; partnerId: string; userPk: string };

/** An e-mail or phone a code is sent to. */
export interface OtpIdentifier {
  channel: 'email' | 'sms';
  /** The normalised address (lowercased e-mail, E.164 phone). */
  to: string;
  /** The stored identifier: `email:<lowercased>` or `phone:<E.164>`. */
  key: string;
  identity: UserIdentity;
}

export type OtpRequestResult =
  | { ok: true; otpId: string; channel: 'email' | 'sms'; to: string }
  | { ok: false; reason: 'invalid_identifier' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export type OtpVerifyResult =
  | { ok: true; user: UserRow }
  /** Not six digits: not counted as an attempt (it cannot be right). */
  | { ok: false; reason: 'malformed' }
  | { ok: false; reason: 'wrong'; attemptsLeft: number }
  /** Unknown or another partner's code, used, expired, or out of attempts: ask for a new one. */
  | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'exhausted' };

/** A pending code as its page shows it. */
export interface OtpView {
  id: string;
  channel: 'email' | 'sms';
  /** The destination, masked (`a•••@example.com`, `•••••••222`). */
  masked: string;
  live: boolean;
}

const Email = z.email();

/**
 * Reads what a person typed on the one-time-password page: an e-mail address, or a phone
 * number in international format. null when it is neither.
 */
export function parseOtpIdentifier(raw: string): OtpIdentifier | null {
  const value = raw.trim();
  if (value === '' || value.length > 254) return null;
  if (value.includes('@')) {
    if (!Email.safeParse(value).success) return null;
    const email = normalizeEmail(value);
    return { channel: 'email', to: email, key: `email:${email}`, identity: { email } };
  }
  if (!value.startsWith('+')) return null;
  const phone = normalizePhone(value);
  if (!phone) return null;
  return { channel: 'sms', to: phone, key: `phone:${phone}`, identity: { phone } };
}

/** `ana@example.com` -> `a•••@example.com`; `+34600111222` -> `•••••••••222`. */
export function maskDestination(channel: 'email' | 'sms', to: string): string {
  if (channel === 'email') {
    const at = to.lastIndexOf('@');
    return `${to.slice(0, 1)}•••${to.slice(at)}`;
  }
  return '•'.repeat(Math.max(0, to.length - 3)) + to.slice(-3);
}

/** What AuthService needs. */
export type AuthServiceDeps = Pick<Kernel, 'db' | 'clock' | 'box'> & { partners: PartnersService; users: UsersService; messages: MessagesService };

/**
 * Tokens, sessions and one-time passwords.
 *
 * @example
 * await db.transact((tx) => {
 *   const user = deps.users.resolve(tx, partnerId, { email: 'ana@example.com' });
 *   const token = auth.mintOneTimeToken(tx, partnerId, user.id, 'smartPublish');
 *   return signUrl(`${base}/sell/...`, token);
 * });
 */
export class AuthService {
  private readonly clock: Clock;
  private readonly box: SecretBox;
  private readonly users: UsersService;
  private readonly messages: MessagesService;

  constructor(deps: AuthServiceDeps) {
    this.clock = deps.clock;
    this.box = deps.box;
    this.users = deps.users;
    this.messages = deps.messages;
  }

  // ------------------------------------------------------------------ one-time tokens

  /**
   * A fresh single-use token for the user, valid the partner's `oneTimeTokenTtlSeconds`
   * (or `ttlSeconds`). Only its hash is stored; the token is returned once.
   *
   * @param purpose what it is for (`login`, `loginTrust`, `smartPublish`, `accessLayer` …), for audit
   */
  async mintOneTimeToken(tx: Tx, partnerId: string, userPk: string, purpose: string, opts: { ttlSeconds?: number } = {}): Promise<string> {
    const batch = await this.tokenBatch(tx, partnerId, userPk, purpose, opts);
    const token = batch.mint();
    await batch.write(tx);
    return token;
  }

  /**
   * Tokens for answers that sign many URLs (about 28 with every access-layer component on):
   * `mint()` returns a fresh token at once, so URLs can be built synchronously, and
   * `write(tx)` stores every token minted so far in one statement. A token is usable only once
   * written: call `write` before the transaction ends (see `withLoginTrustSigner`).
   */
  async tokenBatch(tx: Tx, partnerId: string, userPk: string, purpose: string, opts: { ttlSeconds?: number } = {}): Promise<TokenBatch> {
    const ttlSeconds = opts.ttlSeconds ?? (await partnerOf(tx, partnerId)).settings.oneTimeTokenTtlSeconds;
    let pending: (typeof oneTimeTokens.$inferInsert)[] = [];
    return {
      mint: () => {
        const token = randomToken(TOKEN_BITS);
        const now = this.clock.now();
        pending.push({ id: newId('oneTimeToken'), partnerId, userPk, tokenHash: hashSecret(token), purpose, expiresAt: now + ttlSeconds * 1000, usedAt: null, createdAt: now });
        return token;
      },
      write: async (into: Tx) => {
        const rows = pending;
        pending = [];
        // 8 columns a row: far below SQLite's 32,766 bound parameters and PostgreSQL's 65,535.
        for (let i = 0; i < rows.length; i += TOKEN_ROWS_PER_INSERT) await into.insert(oneTimeTokens).values(rows.slice(i, i + TOKEN_ROWS_PER_INSERT));
      },
    };
  }

  /**
   * Uses a token: one conditional update (`used_at IS NULL AND expires_at > now`, and the
   * expected partner when given), so it succeeds once. A token of another partner is not
   * touched and reads as unknown.
   */
  async redeemOneTimeToken(tx: Tx, token: string, expectedPartnerId?: string | null): Promise<Redemption> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'unknown' };
    const now = this.clock.now();
    const hash = hashSecret(token);
    const conditions = [eq(oneTimeTokens.tokenHash, hash), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)];
    if (expectedPartnerId) conditions.push(eq(oneTimeTokens.partnerId, expectedPartnerId));
    const used = (await tx.update(oneTimeTokens).set({ usedAt: now }).where(and(...conditions)).returning())[0];
    if (used) return { ok: true, partnerId: used.partnerId, userPk: used.userPk, purpose: used.purpose };
    const row = (await tx.select().from(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hash)).limit(1))[0];
    if (!row || (expectedPartnerId && row.partnerId !== expectedPartnerId)) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: row.usedAt !== null ? 'used' : 'expired', partnerId: row.partnerId, userPk: row.userPk };
  }

  /**
   * The user named by `user` (GET /v1/auth/oneTimeToken, `loginTrust[user]`), created on
   * first sight. See {@link USER_METHODS} for how `user` is read.
   *
   * @param opts.path the request field named in errors (default `user`, in the query)
   * @throws ApiError 400 `invalid_format` when `user` does not fit `method`
   */
  async resolveUser(tx: Tx, partnerId: string, user: string, opts: { method?: UserMethod | undefined; path?: string; in?: ErrorLocation } = {}): Promise<UserRow> {
    const path = opts.path ?? 'user';
    const where = opts.in ?? 'query';
    const value = user.trim();
    const how: UserMethod = opts.method ?? (value.includes('@') ? 'email' : value.startsWith('+') ? 'phone' : 'id');
    if (how === 'email') {
      if (value.length > 254 || !Email.safeParse(value).success) throw ApiError.field('invalid_format', path, `${path} must be an e-mail address`, where);
      return await this.users.resolve(tx, partnerId, { email: value }, path);
    }
    if (how === 'phone') {
      const phone = normalizePhone(value);
      if (!phone) throw ApiError.field('invalid_format', path, `${path} must be a phone number in international format, such as +34600111222`, where);
      return await this.users.resolve(tx, partnerId, { phone }, path);
    }
    if (value === '' || value.length > 200) throw ApiError.field('invalid_format', path, `${path} must be the partner's user id (1 to 200 characters)`, where);
    return await this.users.resolve(tx, partnerId, { id: value }, path);
  }

  // ------------------------------------------------------------------ sessions

  /**
   * Starts a session; the token (the cookie value) is returned once, its hash stored.
   *
   * @param opts.steppedUp the user just proved a one-time code (sign-in by code); a session
   *   that begins from a one-time token in a URL is not stepped up
   */
  async startSession(tx: Tx, partnerId: string, userPk: string, opts: { steppedUp?: boolean } = {}): Promise<{ token: string; session: SessionData }> {
    const token = randomToken(TOKEN_BITS);
    const now = this.clock.now();
    const session: SessionData = {
      id: newId('session'),
      partnerId,
      userPk,
      csrfSecret: randomToken(TOKEN_BITS),
      expiresAt: now + SESSION_TTL_MS,
      steppedUpAt: opts.steppedUp ? now : null,
    };
    await tx.insert(sessions)
      .values({ ...session, tokenHash: hashSecret(token), revokedAt: null, createdAt: now });
    return { token, session };
  }

  /** The live session of a cookie value: not revoked, not expired. */
  async findSession(tx: Tx, token: string): Promise<SessionData | null> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    const row = (await tx
      .select()
      .from(sessions)
      .where(and(eq(sessions.tokenHash, hashSecret(token)), isNull(sessions.revokedAt), gt(sessions.expiresAt, this.clock.now()))).limit(1))[0];
    return row ? { id: row.id, partnerId: row.partnerId, userPk: row.userPk, csrfSecret: row.csrfSecret, expiresAt: row.expiresAt, steppedUpAt: row.steppedUpAt } : null;
  }

  /** Whether the session's last proof by one-time code is fresh enough for a change to money destinations. */
  isSteppedUp(session: Pick<SessionData, 'steppedUpAt'>): boolean {
    return session.steppedUpAt !== null && this.clock.now() - session.steppedUpAt < STEP_UP_TTL_MS;
  }

  /**
   * Sends a step-up code to the signed-in user's own e-mail (else phone), never to an address
   * the request names. `no_contact` when the account has neither.
   */
  async requestStepUp(tx: Tx, session: Pick<SessionData, 'partnerId' | 'userPk'>, input: { lang: Lang; ip: string }): Promise<StepUpRequest> {
    const user = await this.users.get(tx, session.partnerId, session.userPk);
    const identifier = user.email ?? user.phone;
    if (!identifier) return { ok: false, reason: 'no_contact' };
    // Its own wording: a code to change payout details, so nobody mistakes it for a sign-in.
    return await this.requestOtp(tx, { partnerId: session.partnerId, identifier, lang: input.lang, ip: input.ip, template: 'stepUpCode' });
  }

  /**
   * Checks a step-up code and marks the session stepped up. The code must have been sent to
   * this session's own user: a code the person requested for another address (their own, on
   * the sign-in page) reads as unknown and counts as a wrong attempt on nothing.
   */
  async verifyStepUp(tx: Tx, session: Pick<SessionData, 'id' | 'partnerId' | 'userPk'>, input: { otpId: string; code: string }): Promise<OtpVerifyResult> {
    const user = await this.users.get(tx, session.partnerId, session.userPk);
    const own = [user.email && `email:${user.email}`, user.phone && `phone:${user.phone}`].filter(Boolean);
    const code = (await tx.select({ identifier: otpCodes.identifier }).from(otpCodes).where(and(eq(otpCodes.id, input.otpId), eq(otpCodes.partnerId, session.partnerId))).limit(1))[0];
    if (!code || !own.includes(code.identifier)) return { ok: false, reason: 'unknown' };
    const result = await this.verifyOtp(tx, { partnerId: session.partnerId, otpId: input.otpId, code: input.code });
    if (!result.ok) return result;
    if (result.user.id !== session.userPk) return { ok: false, reason: 'unknown' };
    await tx.update(sessions).set({ steppedUpAt: this.clock.now() }).where(eq(sessions.id, session.id));
    return result;
  }

  /** Ends a session; true when it was live. */
  async revokeSession(tx: Tx, sessionId: string): Promise<boolean> {
    return affected(await tx.update(sessions).set({ revokedAt: this.clock.now() }).where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)))) === 1;
  }

  // ------------------------------------------------------------------ one-time passwords

  /**
   * Sends a six-digit code to an e-mail (template `oneTimePassword`, e-mail) or a phone
   * (SMS), in the caller's transaction (the message goes through the outbox). Earlier live
   * codes of the same identifier stop working. The user is not created here, only when
   * a code is verified.
   *
   * Limits, each counted over the codes in the database (so they hold for every process of a
   * deployment): `OTP_LIMITS.perIp` (the client address's codes of the last 15 minutes, any
   * identifier, any partner), then the identifier's codes of the last 15 minutes and day.
   */
  async requestOtp(tx: Tx, input: { partnerId: string; identifier: string; lang: Lang; ip: string; template?: 'oneTimePassword' | 'stepUpCode' }): Promise<OtpRequestResult> {
    const who = parseOtpIdentifier(input.identifier);
    if (!who) return { ok: false, reason: 'invalid_identifier' };

    // Count, then write: serialised per client address and per identifier (always in that
    // order, so two requests never wait for each other crosswise), so concurrent requests (other
    // processes on PostgreSQL) never both pass a limit.
    await serializeOn(tx, `otp-ip:${input.ip}`);
    await serializeOn(tx, `otp:${input.partnerId}:${who.key}`);
    const now = this.clock.now();
    const counted = [
      { limit: OTP_LIMITS.perIp.limit, windowMs: OTP_LIMITS.perIp.windowMs, same: eq(otpCodes.clientAddress, input.ip) },
      ...[OTP_LIMITS.perIdentifier, OTP_LIMITS.perIdentifierDaily].map(({ limit, windowMs }) => ({
        limit,
        windowMs,
        same: and(eq(otpCodes.partnerId, input.partnerId), eq(otpCodes.identifier, who.key)),
      })),
    ];
    for (const { limit, windowMs, same } of counted) {
      const recent = await tx
        .select({ createdAt: otpCodes.createdAt })
        .from(otpCodes)
        .where(and(same, gt(otpCodes.createdAt, now - windowMs)))
        .orderBy(desc(otpCodes.createdAt))
        .limit(limit);
      if (recent.length >= limit) {
        const wait = recent[limit - 1]!.createdAt + windowMs - now;
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
      }
    }

    await tx.update(otpCodes)
      .set({ expiresAt: now })
      .where(and(eq(otpCodes.partnerId, input.partnerId), eq(otpCodes.identifier, who.key), isNull(otpCodes.usedAt), gt(otpCodes.expiresAt, now)));
    const id = newId('otp');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await tx.insert(otpCodes)
      .values({ id, partnerId: input.partnerId, identifier: who.key, codeHash: this.codeHash(id, code), attempts: 0, expiresAt: now + OTP_TTL_MS, usedAt: null, createdAt: now, clientAddress: input.ip });
    await this.messages.send(tx, {
      partnerId: input.partnerId,
      channel: who.channel,
      to: who.to,
      template: input.template ?? 'oneTimePassword',
      lang: input.lang,
      vars: { code, minutes: OTP_TTL_MS / 60_000 },
    });
    return { ok: true, otpId: id, channel: who.channel, to: who.to };
  }

  /** A code of the partner as its page shows it; null when unknown or foreign. */
  async viewOtp(tx: Tx, partnerId: string, otpId: string): Promise<OtpView | null> {
    const row = (await tx.select().from(otpCodes).where(and(eq(otpCodes.id, otpId), eq(otpCodes.partnerId, partnerId))).limit(1))[0];
    if (!row) return null;
    const channel = row.identifier.startsWith('phone:') ? 'sms' : 'email';
    const to = row.identifier.slice(row.identifier.indexOf(':') + 1);
    const live = row.usedAt === null && row.expiresAt > this.clock.now() && row.attempts < OTP_MAX_ATTEMPTS;
    return { id: row.id, channel, masked: maskDestination(channel, to), live };
  }

  /**
   * Checks a code. Every well-formed guess takes one attempt first (a conditional update
   * that also requires the code to be live), then compares in constant time; the right code
   * is then claimed with a second conditional update. On success the user is found or
   * created by the e-mail or phone the code was sent to.
   */
  async verifyOtp(tx: Tx, input: { partnerId: string; otpId: string; code: string }): Promise<OtpVerifyResult> {
    const code = input.code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) return { ok: false, reason: 'malformed' };
    const now = this.clock.now();
    const thisCode = and(eq(otpCodes.id, input.otpId), eq(otpCodes.partnerId, input.partnerId));
    const row = (await tx
      .update(otpCodes)
      .set({ attempts: sql`${otpCodes.attempts} + 1` })
      .where(and(thisCode, isNull(otpCodes.usedAt), gt(otpCodes.expiresAt, now), lt(otpCodes.attempts, OTP_MAX_ATTEMPTS)))
      .returning())[0];
    if (!row) {
      const dead = (await tx.select().from(otpCodes).where(thisCode).limit(1))[0];
      if (!dead) return { ok: false, reason: 'unknown' };
      if (dead.usedAt !== null) return { ok: false, reason: 'used' };
      if (dead.attempts >= OTP_MAX_ATTEMPTS) return { ok: false, reason: 'exhausted' };
      return { ok: false, reason: 'expired' };
    }
    // Verified under every key of SECRET_KEY, so a code sent just before a key rotation still works.
    if (!this.box.verify('one-time-password', `${row.id}:${code}`, row.codeHash)) return { ok: false, reason: 'wrong', attemptsLeft: Math.max(0, OTP_MAX_ATTEMPTS - row.attempts) };
    const claimed = await tx.update(otpCodes).set({ usedAt: now }).where(and(thisCode, isNull(otpCodes.usedAt)));
    if (affected(claimed) !== 1) return { ok: false, reason: 'used' };
    const colon = row.identifier.indexOf(':');
    const value = row.identifier.slice(colon + 1);
    const phone = row.identifier.slice(0, colon) === 'phone';
    const user = await this.users.resolve(tx, input.partnerId, phone ? { phone: value } : { email: value }, phone ? 'phone' : 'email');
    return { ok: true, user };
  }

  /** HMAC under the newest key of SECRET_KEY, salted with the code's id (checked with `box.verify`). */
  private codeHash(otpId: string, code: string): string {
    return this.box.sign('one-time-password', `${otpId}:${code}`);
  }

  // ------------------------------------------------------------------ housekeeping

  /**
   * Deletes what can no longer be used: tokens and sessions a day after they expired (or
   * were revoked), codes two days after they were created (the daily limit counts them).
   */
  async purgeExpired(tx: Tx): Promise<{ tokens: number; sessions: number; codes: number }> {
    const now = this.clock.now();
    const day = 24 * 60 * 60_000;
    return {
      tokens: affected(await tx.delete(oneTimeTokens).where(lte(oneTimeTokens.expiresAt, now - day))),
      sessions: affected(
        await tx
          .delete(sessions)
          .where(or(lte(sessions.expiresAt, now - day), and(isNotNull(sessions.revokedAt), lte(sessions.revokedAt, now - day)))),
      ),
      codes: affected(await tx.delete(otpCodes).where(lte(otpCodes.createdAt, now - 2 * day))),
    };
  }
}

const instances = new WeakMap<object, AuthService>();

/**
 * The AuthService of these deps: `deps.auth` once AppDeps carries it (see the wiring in
 * deps.ts), otherwise one instance per deps object. Written so the module works before
 * and after the wiring.
 */
export function authService(deps: AuthServiceDeps): AuthService {
  const wired = (deps as AuthServiceDeps & { auth?: AuthService }).auth;
  if (wired) return wired;
  let svc = instances.get(deps);
  if (!svc) {
    svc = new AuthService(deps);
    instances.set(deps, svc);
  }
  return svc;
}

/** HMAC-SHA256 of a form action under a session's CSRF secret, base64url (the synchronizer token). */
export function csrfTokenFor(secret: string, action: string): string {
  return createHmac('sha256', secret).update(`csrf\u0000${action}`).digest('base64url');
}
