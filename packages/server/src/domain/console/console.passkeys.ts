import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { COSEALG, isoBase64URL } from '@simplewebauthn/server/helpers';
import { and, asc, desc, eq, gt, isNull, lte, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { affected } from '../../db/affected.js';
import type { Tx } from '../../db/client.js';
import { serializeOn } from '../../db/dialect.js';
import { newId } from '../../lib/ids.js';
import type { Kernel } from '../../lib/kernel.js';
import { OTP_LIMITS } from '../auth/auth.service.js';
import { consolePasskeyChallenges, consolePasskeys, consoleSessions } from './console.table.js';

/** A challenge of a passkey ceremony lives this long (and the browser is told to wait as long). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** At most this many passkeys per person. */
export const MAX_PASSKEYS = 10;
/** The longest name of a passkey. */
export const PASSKEY_NAME_MAX = 60;
/** The longest ceremony answer read (a packed attestation with its certificates fits well within). */
export const PASSKEY_RESPONSE_MAX = 32_000;
/**
 * The key algorithms a passkey may use: EdDSA, ES256, RS256 (every authenticator offers one of
 * them). Named here rather than left to the library's default, which adds ML-DSA where the
 * runtime has it: Node's is experimental (probing it prints a warning), and a passkey that only
 * an experimental runtime can verify could stop working at an upgrade.
 */
const ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];

/**
 * Who the passkeys belong to (WebAuthn's relying party): the service's host, from
 * `PUBLIC_BASE_URL`. A passkey works only on the host it was made on: the browser checks the
 * RP ID against the page's host, and we check the origin the browser signed.
 */
export interface RelyingParty {
  /** The RP ID: the host name of `PUBLIC_BASE_URL` (no port). */
  id: string;
  /** The name the browser shows when it makes a passkey. */
  name: string;
  /** The one origin the ceremonies may come from: `PUBLIC_BASE_URL`'s. */
  origin: string;
}

/** The relying party of a deployment whose pages are at `publicBaseUrl`. */
export function relyingPartyOf(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname, name: 'resale console', origin: url.origin };
}

/** A person's passkey as the account page lists it (never its key). */
export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Why a passkey ceremony's answer was not accepted. */
export type PasskeyRefusal =
  /** Not a ceremony answer at all (not JSON, missing parts). */
  | 'malformed'
  /** The challenge is no challenge of this ceremony (or of another session). */
  | 'unknown_challenge'
  /** The challenge was answered already (a replay, a double submit). */
  | 'used'
  /** The challenge is older than {@link PASSKEY_CHALLENGE_TTL_MS}. */
  | 'expired'
  /** Sign-in: no passkey with that credential id. */
  | 'unknown_credential'
  /** The answer does not verify: another origin or RP ID, a bad signature, no user verification, a counter gone back … */
  | 'rejected'
  /** Sign-in: the passkey's person has no access to the console any more. */
  | 'no_access'
  /** Registration: that authenticator's passkey is registered already. */
  | 'exists'
  /** Registration: the person has {@link MAX_PASSKEYS} already. */
  | 'too_many';

/** Options for the browser (`navigator.credentials.create` / `.get`) and the id to answer them with. */
export type CeremonyStart<O> = { ok: true; challengeId: string; options: O } | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number } | { ok: false; reason: 'too_many' };

const base64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+={0,2}$/);
const answerBase = { id: base64url(1400), rawId: base64url(1400), type: z.literal('public-key'), authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(), clientExtensionResults: z.record(z.string(), z.unknown()).default({}) };
const RegistrationAnswer = z.object({
  ...answerBase,
  response: z.object({ clientDataJSON: base64url(4000), attestationObject: base64url(PASSKEY_RESPONSE_MAX), transports: z.array(z.string().max(32)).max(10).optional() }),
});
const AuthenticationAnswer = z.object({
  ...answerBase,
  response: z.object({ clientDataJSON: base64url(4000), authenticatorData: base64url(4000), signature: base64url(4000), userHandle: base64url(200).optional() }),
});

/** The JSON text of a ceremony's answer, checked for its shape (the library checks the rest), or null. */
function parseAnswer<S extends z.ZodType>(schema: S, text: string): z.output<S> | null {
  if (text.length === 0 || text.length > PASSKEY_RESPONSE_MAX) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The WebAuthn user handle of a console user: their id's bytes (an opaque id, no e-mail). */
function userHandleOf(userPk: string): string {
  return isoBase64URL.fromUTF8String(userPk);
}

/**
 * The console's passkeys (tables `console_passkeys` and `console_passkey_challenges`, and the
 * `passkeyPk` of `console_sessions`; part of the console module, reached as
 * `ConsoleService.passkeys`). WebAuthn through `@simplewebauthn/server`: discoverable
 * credentials with user verification required, no attestation asked.
 *
 * Every ceremony starts with a challenge kept here, used once and for
 * {@link PASSKEY_CHALLENGE_TTL_MS} at most: claimed before its answer is verified, so a wrong
 * answer spends it too. Sign-in challenges are counted per client address with the e-mailed
 * codes' limit (`OTP_LIMITS.perIp`), registration ones per session.
 */
export class ConsolePasskeys {
  private readonly clock: Kernel['clock'];
  private readonly rp: RelyingParty;
  private readonly hasAccess: (tx: Tx, userPk: string) => Promise<boolean>;

  constructor(deps: Pick<Kernel, 'clock'> & { relyingParty: RelyingParty; hasAccess: (tx: Tx, userPk: string) => Promise<boolean> }) {
    this.clock = deps.clock;
    this.rp = deps.relyingParty;
    this.hasAccess = deps.hasAccess;
  }

  /** A person's passkeys, oldest first. */
  async list(tx: Tx, userPk: string): Promise<PasskeySummary[]> {
    return await tx
      .select({ id: consolePasskeys.id, name: consolePasskeys.name, createdAt: consolePasskeys.createdAt, lastUsedAt: consolePasskeys.lastUsedAt })
      .from(consolePasskeys)
      .where(eq(consolePasskeys.userPk, userPk))
      .orderBy(asc(consolePasskeys.createdAt), asc(consolePasskeys.id));
  }

  /** One of the person's passkeys, or undefined (another person's id reads as unknown). */
  async get(tx: Tx, userPk: string, passkeyId: string): Promise<PasskeySummary | undefined> {
    return (await this.list(tx, userPk)).find((p) => p.id === passkeyId);
  }

  // ------------------------------------------------------------------ registration

  /**
   * Starts adding a passkey for the signed-in person: the options for
   * `navigator.credentials.create` (their passkeys excluded, so one authenticator is not added
   * twice) and the challenge's id, bound to `session`.
   */
  async registrationOptions(tx: Tx, session: { id: string; user: { id: string; email: string } }, input: { ip: string }): Promise<CeremonyStart<PublicKeyCredentialCreationOptionsJSON>> {
    await serializeOn(tx, `console-passkey-session:${session.id}`);
    const mine = await tx.select({ credentialId: consolePasskeys.credentialId, transports: consolePasskeys.transports }).from(consolePasskeys).where(eq(consolePasskeys.userPk, session.user.id));
    if (mine.length >= MAX_PASSKEYS) return { ok: false, reason: 'too_many' };
    const limited = await this.overLimit(tx, eq(consolePasskeyChallenges.sessionPk, session.id));
    if (limited) return limited;
    const options = await generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: session.user.email,
      userDisplayName: session.user.email,
      userID: isoBase64URL.toBuffer(userHandleOf(session.user.id)),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: mine.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    const challengeId = await this.storeChallenge(tx, { purpose: 'register', challenge: options.challenge, sessionPk: session.id, ip: input.ip });
    return { ok: true, challengeId, options };
  }

  /**
   * Checks the browser's answer to a registration and keeps the passkey under `name`. The
   * challenge must be this session's, unused and alive; it is spent whatever the answer.
   */
  async register(tx: Tx, session: { id: string; user: { id: string } }, input: { challengeId: string; response: string; name: string }): Promise<{ ok: true; passkey: PasskeySummary } | { ok: false; reason: PasskeyRefusal }> {
    const claimed = await this.claim(tx, input.challengeId, 'register', session.id);
    if (!claimed.ok) return claimed;
    const answer = parseAnswer(RegistrationAnswer, input.response);
    if (!answer) return { ok: false, reason: 'malformed' };
    let info;
    try {
      const verified = await verifyRegistrationResponse({ response: answer as RegistrationResponseJSON, expectedChallenge: claimed.challenge, expectedOrigin: this.rp.origin, expectedRPID: this.rp.id, requireUserVerification: true, supportedAlgorithmIDs: ALGORITHMS });
      if (!verified.verified) return { ok: false, reason: 'rejected' };
      info = verified.registrationInfo;
    } catch {
      // The library throws for every check that fails (origin, RP ID, type, challenge, flags, format).
      return { ok: false, reason: 'rejected' };
    }
    if ((await tx.select({ id: consolePasskeys.id }).from(consolePasskeys).where(eq(consolePasskeys.userPk, session.user.id))).length >= MAX_PASSKEYS) return { ok: false, reason: 'too_many' };
    const now = this.clock.now();
    const row = {
      id: newId('consolePasskey'),
      userPk: session.user.id,
      credentialId: info.credential.id,
      publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
      counter: info.credential.counter,
      transports: (info.credential.transports ?? answer.response.transports ?? []).slice(0, 10),
      name: input.name,
      createdAt: now,
      lastUsedAt: null,
    };
    const inserted = await tx.insert(consolePasskeys).values(row).onConflictDoNothing({ target: consolePasskeys.credentialId }).returning({ id: consolePasskeys.id });
    if (inserted.length === 0) return { ok: false, reason: 'exists' };
    return { ok: true, passkey: { id: row.id, name: row.name, createdAt: now, lastUsedAt: null } };
  }

  // ------------------------------------------------------------------ sign-in

  /**
   * Starts a sign-in with a passkey: the options for `navigator.credentials.get` (no
   * credentials listed: the browser offers the passkeys it has for this host) and the
   * challenge's id. Counted per client address, with the codes' limit.
   */
  async signInOptions(tx: Tx, input: { ip: string }): Promise<CeremonyStart<PublicKeyCredentialRequestOptionsJSON>> {
    await serializeOn(tx, `console-passkey-ip:${input.ip}`);
    const limited = await this.overLimit(tx, and(eq(consolePasskeyChallenges.purpose, 'sign_in'), eq(consolePasskeyChallenges.clientAddress, input.ip)));
    if (limited) return limited;
    const options = await generateAuthenticationOptions({ rpID: this.rp.id, timeout: PASSKEY_CHALLENGE_TTL_MS, userVerification: 'required' });
    const challengeId = await this.storeChallenge(tx, { purpose: 'sign_in', challenge: options.challenge, sessionPk: null, ip: input.ip });
    return { ok: true, challengeId, options };
  }

  /**
   * Checks the browser's answer to a sign-in: the challenge (unused, alive, spent now), the
   * credential (known), the signature over this origin, RP ID and challenge with the person
   * verified, and the counter; then moves the counter and records the use. Answers whose
   * passkey and person it was; starting the session is the caller's
   * (`ConsoleService.startSession`).
   */
  async verifySignIn(tx: Tx, input: { challengeId: string; response: string }): Promise<{ ok: true; userPk: string; passkeyId: string } | { ok: false; reason: PasskeyRefusal }> {
    const claimed = await this.claim(tx, input.challengeId, 'sign_in', null);
    if (!claimed.ok) return claimed;
    const answer = parseAnswer(AuthenticationAnswer, input.response);
    if (!answer) return { ok: false, reason: 'malformed' };
    const passkey = (await tx.select().from(consolePasskeys).where(eq(consolePasskeys.credentialId, answer.id)).limit(1))[0];
    if (!passkey) return { ok: false, reason: 'unknown_credential' };
    // A discoverable credential names its person: it must be the passkey's.
    if (answer.response.userHandle !== undefined && isoBase64URL.trimPadding(answer.response.userHandle) !== userHandleOf(passkey.userPk)) return { ok: false, reason: 'rejected' };
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response: answer as AuthenticationResponseJSON,
        expectedChallenge: claimed.challenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        credential: { id: passkey.credentialId, publicKey: isoBase64URL.toBuffer(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: true,
      });
      if (!verified.verified) return { ok: false, reason: 'rejected' };
      newCounter = verified.authenticationInfo.newCounter;
    } catch {
      // Thrown for every failed check, a counter that did not move forward included.
      return { ok: false, reason: 'rejected' };
    }
    await tx.update(consolePasskeys).set({ counter: newCounter, lastUsedAt: this.clock.now() }).where(eq(consolePasskeys.id, passkey.id));
    if (!(await this.hasAccess(tx, passkey.userPk))) return { ok: false, reason: 'no_access' };
    return { ok: true, userPk: passkey.userPk, passkeyId: passkey.id };
  }

  // ------------------------------------------------------------------ changes

  /** Renames one of the person's passkeys; the passkey as it was, or undefined when it is not theirs. */
  async rename(tx: Tx, userPk: string, passkeyId: string, name: string): Promise<PasskeySummary | undefined> {
    const before = await this.get(tx, userPk, passkeyId);
    if (!before) return undefined;
    await tx.update(consolePasskeys).set({ name }).where(and(eq(consolePasskeys.id, passkeyId), eq(consolePasskeys.userPk, userPk)));
    return before;
  }

  /**
   * Removes one of the person's passkeys and ends the sessions it signed in (a lost or stolen
   * device loses its way in at once); the passkey as it was, or undefined when it is not theirs.
   */
  async remove(tx: Tx, userPk: string, passkeyId: string): Promise<PasskeySummary | undefined> {
    const before = await this.get(tx, userPk, passkeyId);
    if (!before) return undefined;
    await tx.delete(consolePasskeys).where(and(eq(consolePasskeys.id, passkeyId), eq(consolePasskeys.userPk, userPk)));
    await tx.update(consoleSessions).set({ revokedAt: this.clock.now() }).where(and(eq(consoleSessions.passkeyPk, passkeyId), isNull(consoleSessions.revokedAt)));
    return before;
  }

  /** Deletes challenges two days after they were made (the per-address limit counts the last 15 minutes). */
  async purgeChallenges(tx: Tx): Promise<number> {
    return affected(await tx.delete(consolePasskeyChallenges).where(lte(consolePasskeyChallenges.createdAt, this.clock.now() - 2 * 24 * 60 * 60_000)));
  }

  // ------------------------------------------------------------------ challenges

  /** The refusal when the challenges matching `same` in the window are at the limit (`OTP_LIMITS.perIp`), else null. */
  private async overLimit(tx: Tx, same: SQL | undefined): Promise<{ ok: false; reason: 'rate_limited'; retryAfterSeconds: number } | null> {
    const { limit, windowMs } = OTP_LIMITS.perIp;
    const now = this.clock.now();
    const recent = await tx
      .select({ createdAt: consolePasskeyChallenges.createdAt })
      .from(consolePasskeyChallenges)
      .where(and(same, gt(consolePasskeyChallenges.createdAt, now - windowMs)))
      .orderBy(desc(consolePasskeyChallenges.createdAt))
      .limit(limit);
    if (recent.length < limit) return null;
    return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((recent[limit - 1]!.createdAt + windowMs - now) / 1000)) };
  }

  private async storeChallenge(tx: Tx, input: { purpose: 'register' | 'sign_in'; challenge: string; sessionPk: string | null; ip: string }): Promise<string> {
    const id = newId('consolePasskeyChallenge');
    const now = this.clock.now();
    await tx.insert(consolePasskeyChallenges).values({ id, purpose: input.purpose, challenge: input.challenge, sessionPk: input.sessionPk, clientAddress: input.ip, expiresAt: now + PASSKEY_CHALLENGE_TTL_MS, usedAt: null, createdAt: now });
    return id;
  }

  /** Spends a challenge (one conditional update: two answers racing, one wins), or says why it cannot be. */
  private async claim(tx: Tx, challengeId: string, purpose: 'register' | 'sign_in', sessionPk: string | null): Promise<{ ok: true; challenge: string } | { ok: false; reason: 'unknown_challenge' | 'used' | 'expired' }> {
    if (challengeId.length === 0 || challengeId.length > 100) return { ok: false, reason: 'unknown_challenge' };
    const now = this.clock.now();
    const same = and(eq(consolePasskeyChallenges.id, challengeId), eq(consolePasskeyChallenges.purpose, purpose), sessionPk !== null ? eq(consolePasskeyChallenges.sessionPk, sessionPk) : undefined);
    const row = (await tx
      .update(consolePasskeyChallenges)
      .set({ usedAt: now })
      .where(and(same, isNull(consolePasskeyChallenges.usedAt), gt(consolePasskeyChallenges.expiresAt, now)))
      .returning({ challenge: consolePasskeyChallenges.challenge }))[0];
    if (row) return { ok: true, challenge: row.challenge };
    const dead = (await tx.select({ usedAt: consolePasskeyChallenges.usedAt }).from(consolePasskeyChallenges).where(same).limit(1))[0];
    if (!dead) return { ok: false, reason: 'unknown_challenge' };
    return { ok: false, reason: dead.usedAt !== null ? 'used' : 'expired' };
  }
}

