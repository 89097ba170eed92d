import { randomInt } from 'node:crypto';
import type { Lang } from '@resale/shared/lang';
import { and, asc, desc, eq, gt, inArray, isNull, lt, lte, notInArray, or, sql } from 'drizzle-orm';
import { affected } from '../../db/affected.js';
import type { Tx } from '../../db/client.js';
import { serializeOn } from '../../db/dialect.js';
import { hashSecret, randomToken } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { Kernel } from '../../lib/kernel.js';
import { OTP_LIMITS, OTP_MAX_ATTEMPTS, OTP_TTL_MS, TOKEN_BITS } from '../auth/auth.service.js';
import type { MessagesService } from '../email/email.service.js';
import { partnerNames } from '../partners/partners.queries.js';
import type { ConsoleRole } from './console.model.js';
import { ConsolePasskeys, type RelyingParty } from './console.passkeys.js';
import { consoleCodes, consoleMemberships, consoleSessions, consoleUsers, type ConsoleMembershipRow, type ConsoleUserRow } from './console.table.js';

/** A console session ends after 30 minutes without a request… */
export const CONSOLE_IDLE_MS = 30 * 60_000;
/** …and 12 hours after sign-in, whatever happens. */
export const CONSOLE_SESSION_MS = 12 * 60 * 60_000;
/** A fresh code counts this long for showing a secret, rotating a key, changing where money goes or refunding: operators' powers reach every partner, so shorter than a fan's (STEP_UP_TTL_MS). */
export const CONSOLE_STEP_UP_MS = 10 * 60_000;
/** `seenAt` is written at most this often (the idle timeout needs no finer grain, and a page view then writes nothing). */
const SEEN_GRAIN_MS = 60_000;
const MAX_TOKEN_LENGTH = 200;

/** What someone may do at a partner, by role; operators may do everything everywhere. */
export const ROLE_CAN = {
  /** Read everything of the partner. */
  read: ['partner_admin', 'developer', 'viewer'],
  /** Keys, allowed origins, webhooks, the sandbox. */
  develop: ['partner_admin', 'developer'],
  /** Settings, events, manual load, and the team. */
  administer: ['partner_admin'],
} as const satisfies Record<string, readonly ConsoleRole[]>;
export type Permission = keyof typeof ROLE_CAN;

/** A person signed in to the console: who, and where they may go. */
export interface ConsoleIdentity {
  user: ConsoleUserRow;
  /** Their partners, with their role at each (operators see every partner without a membership). */
  memberships: (ConsoleMembershipRow & { partnerName: string })[];
}

/** A live console session and its person. */
export interface ConsoleSession extends ConsoleIdentity {
  id: string;
  csrfSecret: string;
  createdAt: number;
  expiresAt: number;
  steppedUpAt: number | null;
  /** The session's last recorded request is a minute old or more: record this one ({@link ConsoleService.touchSession}). */
  seenStale: boolean;
}

/** Why a code was not accepted. */
export type CodeRefusal = 'malformed' | 'unknown' | 'used' | 'expired' | 'exhausted' | 'wrong' | 'no_access';

/**
 * Whether `identity` may do `what` at `partnerId`: operators everywhere, others by their role
 * at that partner.
 */
export function can(identity: ConsoleIdentity, what: Permission, partnerId: string): boolean {
  if (identity.user.operator) return true;
  const membership = identity.memberships.find((m) => m.partnerId === partnerId);
  return membership !== undefined && (ROLE_CAN[what] as readonly string[]).includes(membership.role);
}

/** The role `identity` acts with at `partnerId` (for the audit log), or null without access. */
export function roleAt(identity: ConsoleIdentity, partnerId: string | null): 'operator' | ConsoleRole | null {
  if (identity.user.operator) return 'operator';
  return identity.memberships.find((m) => m.partnerId === partnerId)?.role ?? null;
}

/** `value` as a console address (trimmed, lowercased), or null when it is not one. */
export function consoleEmail(value: string): string | null {
  const email = value.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/.test(email) ? email : null;
}

/**
 * The console's people, their roles, their one-time codes, their sessions and their passkeys
 * (tables `console_users`, `console_memberships`, `console_codes`, `console_sessions`, and
 * through {@link passkeys} `console_passkeys` and `console_passkey_challenges`, written by this
 * module only).
 *
 * Sign-in is by a one-time code sent by e-mail, with the fans' limits (`OTP_LIMITS`: per client
 * address, per address per 15 minutes and per day) and their 5 attempts; a code goes only to an
 * address with access (an operator's, or one with a membership), and the answer never says
 * which addresses have it. Sessions are separate from the fans': idle after 30 minutes, over
 * after 12 hours; a fresh code (step-up) counts for 10 minutes. Passkeys are the second way
 * in ({@link passkeys}).
 */
export class ConsoleService {
  private readonly clock: Kernel['clock'];
  private readonly box: Kernel['box'];
  private readonly messages: Pick<MessagesService, 'send'>;
  /** The people's passkeys (tables `console_passkeys`, `console_passkey_challenges`): adding, listing, removing, signing in. */
  readonly passkeys: ConsolePasskeys;

  constructor(deps: Pick<Kernel, 'clock' | 'box'> & { messages: Pick<MessagesService, 'send'>; relyingParty: RelyingParty }) {
    this.clock = deps.clock;
    this.box = deps.box;
    this.messages = deps.messages;
    this.passkeys = new ConsolePasskeys({ clock: deps.clock, relyingParty: deps.relyingParty, hasAccess: async (tx, userPk) => await this.hasAccess(tx, userPk) });
  }

  // ------------------------------------------------------------------ people

  /**
   * Makes the addresses of OPERATOR_EMAILS the operators, and only them: at each start, so
   * removing an address from the list takes the operator's rights away (their memberships, if
   * any, stay). Idempotent.
   */
  async syncOperators(tx: Tx, emails: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const list = [...new Set(emails.map((e) => consoleEmail(e)).filter((e): e is string => e !== null))];
    for (const email of list) {
      await tx
        .insert(consoleUsers)
        .values({ id: newId('consoleUser'), email, operator: true, firstSignInAt: null, lastSignInAt: null, createdAt: now })
        .onConflictDoUpdate({ target: consoleUsers.email, set: { operator: true } });
    }
    await tx
      .update(consoleUsers)
      .set({ operator: false })
      .where(and(eq(consoleUsers.operator, true), list.length > 0 ? notInArray(consoleUsers.email, list) : undefined));
  }

  /** The person with this address, or undefined. */
  async userByEmail(tx: Tx, email: string): Promise<ConsoleUserRow | undefined> {
    return (await tx.select().from(consoleUsers).where(eq(consoleUsers.email, email)).limit(1))[0];
  }

  /** A person and their memberships, or null when unknown. */
  async identity(tx: Tx, userPk: string): Promise<ConsoleIdentity | null> {
    const user = (await tx.select().from(consoleUsers).where(eq(consoleUsers.id, userPk)).limit(1))[0];
    if (!user) return null;
    const rows = await tx.select().from(consoleMemberships).where(eq(consoleMemberships.userPk, userPk));
    const names = await partnerNames(tx, rows.map((m) => m.partnerId));
    const memberships = rows.filter((m) => names.has(m.partnerId)).map((m) => ({ ...m, partnerName: names.get(m.partnerId)! }));
    memberships.sort((a, b) => a.partnerName.localeCompare(b.partnerName));
    return { user, memberships };
  }

  /** Whether the person may sign in: an operator, or someone with a role at a partner. */
  async hasAccess(tx: Tx, userPk: string): Promise<boolean> {
    const identity = await this.identity(tx, userPk);
    return identity !== null && (identity.user.operator || identity.memberships.length > 0);
  }

  /** A partner's people, with their roles, in the order they were added. */
  async team(tx: Tx, partnerId: string): Promise<{ membership: ConsoleMembershipRow; user: ConsoleUserRow }[]> {
    return await tx
      .select({ membership: consoleMemberships, user: consoleUsers })
      .from(consoleMemberships)
      .innerJoin(consoleUsers, eq(consoleUsers.id, consoleMemberships.userPk))
      .where(eq(consoleMemberships.partnerId, partnerId))
      .orderBy(asc(consoleMemberships.createdAt), asc(consoleMemberships.id));
  }

  /**
   * Gives `email` a role at a partner (creating the person when new) and tells them by e-mail.
   * `exists` when they already have a role there (change it instead).
   */
  async invite(tx: Tx, input: { email: string; partnerId: string; partnerName: string; role: ConsoleRole; invitedBy: string | null; consoleUrl: string; lang: Lang }): Promise<{ ok: true; membership: ConsoleMembershipRow } | { ok: false; reason: 'exists' }> {
    const now = this.clock.now();
    await tx
      .insert(consoleUsers)
      .values({ id: newId('consoleUser'), email: input.email, operator: false, firstSignInAt: null, lastSignInAt: null, createdAt: now })
      .onConflictDoNothing({ target: consoleUsers.email });
    const user = (await this.userByEmail(tx, input.email))!;
    const inserted = await tx
      .insert(consoleMemberships)
      .values({ id: newId('consoleMembership'), userPk: user.id, partnerId: input.partnerId, role: input.role, invitedBy: input.invitedBy, createdAt: now })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) return { ok: false, reason: 'exists' };
    await this.messages.send(tx, {
      partnerId: input.partnerId,
      channel: 'email',
      to: input.email,
      template: 'consoleInvitation',
      lang: input.lang,
      vars: { partnerName: input.partnerName, role: input.role, consoleUrl: input.consoleUrl },
    });
    return { ok: true, membership: inserted[0]! };
  }

  /** A membership of the partner, or undefined (another partner's id reads as unknown). */
  async membership(tx: Tx, partnerId: string, membershipId: string): Promise<(ConsoleMembershipRow & { email: string }) | undefined> {
    const row = (await tx
      .select({ membership: consoleMemberships, email: consoleUsers.email })
      .from(consoleMemberships)
      .innerJoin(consoleUsers, eq(consoleUsers.id, consoleMemberships.userPk))
      .where(and(eq(consoleMemberships.id, membershipId), eq(consoleMemberships.partnerId, partnerId)))
      .limit(1))[0];
    return row ? { ...row.membership, email: row.email } : undefined;
  }

  /** Changes a membership's role; false when it is not the partner's. */
  async changeRole(tx: Tx, partnerId: string, membershipId: string, role: ConsoleRole): Promise<boolean> {
    return affected(await tx.update(consoleMemberships).set({ role }).where(and(eq(consoleMemberships.id, membershipId), eq(consoleMemberships.partnerId, partnerId)))) === 1;
  }

  /** Removes a membership and ends that person's sessions (their access may have been all they had); false when it is not the partner's. */
  async removeMembership(tx: Tx, partnerId: string, membershipId: string): Promise<boolean> {
    const row = await this.membership(tx, partnerId, membershipId);
    if (!row) return false;
    await tx.delete(consoleMemberships).where(eq(consoleMemberships.id, membershipId));
    await tx.update(consoleSessions).set({ revokedAt: this.clock.now() }).where(and(eq(consoleSessions.userPk, row.userPk), isNull(consoleSessions.revokedAt)));
    return true;
  }

  // ------------------------------------------------------------------ codes

  /**
   * Sends a sign-in code to `email` if it has access; the answer is the same either way (a
   * code id to enter it with), so the form tells nobody which addresses have access. Limits
   * as the fans' codes (`OTP_LIMITS`), counted in the database for every process.
   */
  async requestSignInCode(tx: Tx, input: { email: string; ip: string; lang: Lang }): Promise<{ ok: true; codeId: string } | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number }> {
    const user = await this.userByEmail(tx, input.email);
    const hasAccess = user !== undefined && (user.operator || (await tx.select({ id: consoleMemberships.id }).from(consoleMemberships).where(eq(consoleMemberships.userPk, user.id)).limit(1)).length > 0);
    return await this.issueCode(tx, { email: input.email, ip: input.ip, lang: input.lang, purpose: 'sign_in', sessionPk: null, send: hasAccess });
  }

  /** Sends a confirmation code (step-up) to the signed-in person's own address, bound to their session. */
  async requestStepUpCode(tx: Tx, session: Pick<ConsoleSession, 'id' | 'user'>, input: { ip: string; lang: Lang }) {
    return await this.issueCode(tx, { email: session.user.email, ip: input.ip, lang: input.lang, purpose: 'step_up', sessionPk: session.id, send: true });
  }

  private async issueCode(tx: Tx, input: { email: string; ip: string; lang: Lang; purpose: 'sign_in' | 'step_up'; sessionPk: string | null; send: boolean }): Promise<{ ok: true; codeId: string } | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number }> {
    // Count, then write, serialised per address and per e-mail (in that order) as the fans' codes are.
    await serializeOn(tx, `console-code-ip:${input.ip}`);
    await serializeOn(tx, `console-code:${input.email}`);
    const now = this.clock.now();
    const counted = [
      { ...OTP_LIMITS.perIp, same: eq(consoleCodes.clientAddress, input.ip) },
      { ...OTP_LIMITS.perIdentifier, same: eq(consoleCodes.email, input.email) },
      { ...OTP_LIMITS.perIdentifierDaily, same: eq(consoleCodes.email, input.email) },
    ];
    for (const { limit, windowMs, same } of counted) {
      const recent = await tx.select({ createdAt: consoleCodes.createdAt }).from(consoleCodes).where(and(same, gt(consoleCodes.createdAt, now - windowMs))).orderBy(desc(consoleCodes.createdAt)).limit(limit);
      if (recent.length >= limit) return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((recent[limit - 1]!.createdAt + windowMs - now) / 1000)) };
    }
    // A new code ends the live ones of the same address and purpose: only the latest works.
    await tx
      .update(consoleCodes)
      .set({ expiresAt: now })
      .where(and(eq(consoleCodes.email, input.email), eq(consoleCodes.purpose, input.purpose), isNull(consoleCodes.usedAt), gt(consoleCodes.expiresAt, now)));
    const id = newId('consoleCode');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await tx.insert(consoleCodes).values({
      id,
      email: input.email,
      purpose: input.purpose,
      sessionPk: input.sessionPk,
      codeHash: this.box.sign('console-code', `${id}:${code}`),
      attempts: 0,
      expiresAt: now + OTP_TTL_MS,
      usedAt: null,
      createdAt: now,
      clientAddress: input.ip,
    });
    if (input.send) {
      await this.messages.send(tx, {
        channel: 'email',
        to: input.email,
        template: 'consoleCode',
        lang: input.lang,
        vars: { code, minutes: OTP_TTL_MS / 60_000, purpose: input.purpose === 'sign_in' ? 'sign_in' : 'confirm' },
      });
    }
    return { ok: true, codeId: id };
  }

  /** The address a live code was sent to (for the code page), or null when the code is unknown or dead. */
  async codeDestination(tx: Tx, codeId: string, purpose: 'sign_in' | 'step_up'): Promise<string | null> {
    const row = (await tx.select().from(consoleCodes).where(and(eq(consoleCodes.id, codeId), eq(consoleCodes.purpose, purpose))).limit(1))[0];
    return row && row.usedAt === null && row.expiresAt > this.clock.now() && row.attempts < OTP_MAX_ATTEMPTS ? row.email : null;
  }

  /**
   * Checks a code: each well-formed guess takes an attempt first (the 5th wrong one kills the
   * code), then compares in constant time, then claims it once. A sign-in code of an address
   * without access is refused as `no_access` only once it is right (so it tells nothing more
   * than the e-mail did); a step-up code only counts in the session it was sent for.
   */
  async verifyCode(tx: Tx, input: { codeId: string; code: string; purpose: 'sign_in' | 'step_up'; sessionPk?: string }): Promise<{ ok: true; userPk: string } | { ok: false; reason: CodeRefusal; attemptsLeft?: number }> {
    const code = input.code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) return { ok: false, reason: 'malformed' };
    const now = this.clock.now();
    const thisCode = and(eq(consoleCodes.id, input.codeId), eq(consoleCodes.purpose, input.purpose), input.sessionPk !== undefined ? eq(consoleCodes.sessionPk, input.sessionPk) : undefined);
    const row = (await tx
      .update(consoleCodes)
      .set({ attempts: sql`${consoleCodes.attempts} + 1` })
      .where(and(thisCode, isNull(consoleCodes.usedAt), gt(consoleCodes.expiresAt, now), lt(consoleCodes.attempts, OTP_MAX_ATTEMPTS)))
      .returning())[0];
    if (!row) {
      const dead = (await tx.select().from(consoleCodes).where(thisCode).limit(1))[0];
      if (!dead) return { ok: false, reason: 'unknown' };
      if (dead.usedAt !== null) return { ok: false, reason: 'used' };
      if (dead.attempts >= OTP_MAX_ATTEMPTS) return { ok: false, reason: 'exhausted' };
      return { ok: false, reason: 'expired' };
    }
    if (!this.box.verify('console-code', `${row.id}:${code}`, row.codeHash)) return { ok: false, reason: 'wrong', attemptsLeft: Math.max(0, OTP_MAX_ATTEMPTS - row.attempts) };
    if (affected(await tx.update(consoleCodes).set({ usedAt: now }).where(and(eq(consoleCodes.id, row.id), isNull(consoleCodes.usedAt)))) !== 1) return { ok: false, reason: 'used' };
    const user = await this.userByEmail(tx, row.email);
    if (!user) return { ok: false, reason: 'no_access' };
    const identity = (await this.identity(tx, user.id))!;
    if (!identity.user.operator && identity.memberships.length === 0) return { ok: false, reason: 'no_access' };
    return { ok: true, userPk: user.id };
  }

  // ------------------------------------------------------------------ sessions

  /**
   * A new session for a person who just signed in, returning the cookie's token once.
   * `replacing`: the session the browser had, ended now (a new token at every sign-in: no
   * session fixation). Signed in by a code (the default), the session starts stepped up: the
   * code was fresh. Signed in by a passkey (`passkeyPk`), it does not (a fresh code is still
   * asked before a secret or a new passkey), and removing that passkey ends it.
   */
  async startSession(tx: Tx, userPk: string, replacing?: string | null, opts: { passkeyPk?: string } = {}): Promise<{ token: string; sessionId: string }> {
    const now = this.clock.now();
    if (replacing) await this.revokeByToken(tx, replacing);
    const token = randomToken(TOKEN_BITS);
    const id = newId('consoleSession');
    const passkeyPk = opts.passkeyPk ?? null;
    await tx.insert(consoleSessions).values({ id, userPk, tokenHash: hashSecret(token), csrfSecret: randomToken(TOKEN_BITS), createdAt: now, seenAt: now, expiresAt: now + CONSOLE_SESSION_MS, revokedAt: null, steppedUpAt: passkeyPk === null ? now : null, passkeyPk });
    await tx.update(consoleUsers).set({ lastSignInAt: now, firstSignInAt: sql`coalesce(${consoleUsers.firstSignInAt}, ${now})` }).where(eq(consoleUsers.id, userPk));
    return { token, sessionId: id };
  }

  /**
   * The live session of a cookie value, with its person: not revoked, not over (12 hours), not
   * idle (30 minutes since its last request). A read: the caller records the request as activity
   * with {@link touchSession} when `seenStale` says so, so a page view takes no write lock.
   */
  async findSession(tx: Tx, token: string): Promise<ConsoleSession | null> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    const now = this.clock.now();
    const row = (await tx
      .select()
      .from(consoleSessions)
      .where(and(eq(consoleSessions.tokenHash, hashSecret(token)), isNull(consoleSessions.revokedAt), gt(consoleSessions.expiresAt, now), gt(consoleSessions.seenAt, now - CONSOLE_IDLE_MS)))
      .limit(1))[0];
    if (!row) return null;
    const identity = await this.identity(tx, row.userPk);
    if (!identity || (!identity.user.operator && identity.memberships.length === 0)) return null;
    return { ...identity, id: row.id, csrfSecret: row.csrfSecret, createdAt: row.createdAt, expiresAt: row.expiresAt, steppedUpAt: row.steppedUpAt, seenStale: now - row.seenAt >= SEEN_GRAIN_MS };
  }

  /** Records a request of the session (the idle timeout counts from it); {@link findSession} says when it is due (`seenStale`). */
  async touchSession(tx: Tx, sessionId: string): Promise<void> {
    await tx.update(consoleSessions).set({ seenAt: this.clock.now() }).where(eq(consoleSessions.id, sessionId));
  }

  /** Whether the session's last code is fresh enough to show a secret, rotate a key, change where money goes or refund. */
  isSteppedUp(session: Pick<ConsoleSession, 'steppedUpAt'>): boolean {
    return session.steppedUpAt !== null && this.clock.now() - session.steppedUpAt < CONSOLE_STEP_UP_MS;
  }

  /** Marks the session stepped up (a confirmation code was just entered in it). */
  async markSteppedUp(tx: Tx, sessionId: string): Promise<void> {
    await tx.update(consoleSessions).set({ steppedUpAt: this.clock.now() }).where(eq(consoleSessions.id, sessionId));
  }

  /** Ends the session of a cookie value (sign-out); false when there was none. */
  async revokeByToken(tx: Tx, token: string): Promise<boolean> {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return false;
    return affected(await tx.update(consoleSessions).set({ revokedAt: this.clock.now() }).where(and(eq(consoleSessions.tokenHash, hashSecret(token)), isNull(consoleSessions.revokedAt)))) === 1;
  }

  /** Deletes sessions a day after they ended, codes and passkey challenges two days after they were made (the limits count them). */
  async purgeExpired(tx: Tx): Promise<{ sessions: number; codes: number; challenges: number }> {
    const now = this.clock.now();
    const day = 24 * 60 * 60_000;
    return {
      sessions: affected(await tx.delete(consoleSessions).where(or(lte(consoleSessions.expiresAt, now - day), lte(consoleSessions.seenAt, now - CONSOLE_IDLE_MS - day), lte(consoleSessions.revokedAt, now - day)))),
      codes: affected(await tx.delete(consoleCodes).where(lte(consoleCodes.createdAt, now - 2 * day))),
      challenges: await this.passkeys.purgeChallenges(tx),
    };
  }

  /** Memberships of several people at once (the operator's people page). */
  async membershipsOf(tx: Tx, userPks: readonly string[]): Promise<ConsoleMembershipRow[]> {
    return userPks.length === 0 ? [] : await tx.select().from(consoleMemberships).where(inArray(consoleMemberships.userPk, [...userPks]));
  }
}

export type { ConsoleMembershipRow, ConsoleUserRow } from './console.table.js';
export { CONSOLE_ROLES, type ConsoleRole } from './console.model.js';
export { MAX_PASSKEYS, PASSKEY_CHALLENGE_TTL_MS, PASSKEY_NAME_MAX, PASSKEY_RESPONSE_MAX, relyingPartyOf, type PasskeyRefusal, type PasskeySummary, type RelyingParty } from './console.passkeys.js';
