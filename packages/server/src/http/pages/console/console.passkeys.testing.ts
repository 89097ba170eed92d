import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';
import { expect } from 'vitest';
import type { createTestApp } from '../../../testing/harness.js';
import { TestBrowser, type BrowserResponse } from '../auth/auth.testing.js';

type TestApp = ReturnType<typeof createTestApp>;

/** The test app's relying party (its PUBLIC_BASE_URL is http://resale.test). */
export const TEST_RP = { id: 'resale.test', origin: 'http://resale.test' } as const;

type Bytes = Uint8Array<ArrayBuffer>;
const b64 = (bytes: Bytes) => isoBase64URL.fromBuffer(bytes);
const sha256 = (data: Bytes | string): Bytes => new Uint8Array(createHash('sha256').update(data).digest());
const concat = (...parts: Bytes[]): Bytes => new Uint8Array(Buffer.concat(parts));
const uint32 = (n: number): Bytes => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** What an answer may get wrong on purpose: another origin or RP ID, no user verification, a counter of its own. */
export interface Tamper {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  counter?: number;
}

/**
 * A software authenticator (ES256, `none` attestation) for the server's tests: it answers the
 * options the routes give as a browser with a platform authenticator would, byte for byte
 * (authenticator data, CBOR attestation object, client data JSON, DER signature), so the
 * real `@simplewebauthn/server` checks run on them. Its signature counter moves at each use.
 */
export class SoftAuthenticator {
  readonly credentialId: Bytes = new Uint8Array(randomBytes(32));
  private readonly privateKey: KeyObject;
  private readonly cosePublicKey: Bytes;
  private counter = 0;
  /** The user handle it was registered with (it says it back when it signs in, as a discoverable credential does). */
  userHandle: string | null = null;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cosePublicKey = isoCBOR.encode(
      new Map<number, number | Bytes>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, isoBase64URL.toBuffer(jwk.x!)],
        [-3, isoBase64URL.toBuffer(jwk.y!)],
      ]),
    );
  }

  /** The credential's id as the browser sends it (base64url). */
  get id(): string {
    return b64(this.credentialId);
  }

  private authData(rpId: string, flags: number, counter: number, attested: boolean): Bytes {
    const parts = [sha256(rpId), new Uint8Array([flags]), uint32(counter)];
    if (attested) parts.push(new Uint8Array(16), new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 255]), this.credentialId, this.cosePublicKey);
    return concat(...parts);
  }

  private clientData(type: string, challenge: string, origin: string): Bytes {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** `navigator.credentials.create`'s answer to `options`, as JSON. */
  register(options: PublicKeyCredentialCreationOptionsJSON, tamper: Tamper = {}): RegistrationResponseJSON {
    const flags = 0x01 | (tamper.userVerified === false ? 0 : 0x04) | 0x40;
    const authData = this.authData(tamper.rpId ?? options.rp.id ?? TEST_RP.id, flags, 0, true);
    const attestationObject = isoCBOR.encode(new Map<string, string | Bytes | Map<string, string>>([['fmt', 'none'], ['attStmt', new Map<string, string>()], ['authData', authData]]));
    this.userHandle = options.user.id;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: { clientDataJSON: b64(this.clientData('webauthn.create', options.challenge, tamper.origin ?? TEST_RP.origin)), attestationObject: b64(attestationObject), transports: ['internal'] },
    };
  }

  /** `navigator.credentials.get`'s answer to `options`, as JSON (the counter moves on, unless `tamper.counter` says what to send). */
  assert(options: PublicKeyCredentialRequestOptionsJSON, tamper: Tamper = {}): AuthenticationResponseJSON {
    const flags = 0x01 | (tamper.userVerified === false ? 0 : 0x04);
    const counter = tamper.counter ?? ++this.counter;
    const authData = this.authData(tamper.rpId ?? options.rpId ?? TEST_RP.id, flags, counter, false);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, tamper.origin ?? TEST_RP.origin);
    const signature = new Uint8Array(sign('sha256', concat(authData, sha256(clientDataJSON)), this.privateKey));
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authData), signature: b64(signature), ...(this.userHandle ? { userHandle: this.userHandle } : {}) },
    };
  }
}

/** The value of `data-<name>` on the first element that has it, `&amp;` decoded. */
export function dataAttribute(html: string, name: string): string | null {
  return new RegExp(`data-${name}="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;
}

/** The `action` of the form driven by the passkey script (`data-passkey`), `&amp;` decoded. */
export function ceremonyAction(html: string): string {
  const tag = /<form[^>]*data-passkey=[^>]*>/.exec(html)?.[0];
  const action = tag ? /action="([^"]*)"/.exec(tag)?.[1] : undefined;
  if (!action) throw new Error('the page has no passkey form');
  return action.replace(/&amp;/g, '&');
}

/** The CSRF token inside the passkey form. */
export function ceremonyCsrf(html: string): string {
  const at = html.search(/<form[^>]*data-passkey=/);
  const token = /name="_csrf" value="([^"]*)"/.exec(html.slice(at))?.[1];
  if (at < 0 || !token) throw new Error('the page has no passkey form');
  return token;
}

/** What the passkey script does first: posts the page's options token to its options URL, and answers the JSON. */
export async function fetchOptions<O>(browser: TestBrowser, page: string): Promise<{ status: number; body: { challengeId?: string; options?: O; error?: string; redirect?: string } }> {
  const res = await browser.post(dataAttribute(page, 'passkey-options')!, { _csrf: dataAttribute(page, 'passkey-options-csrf')! });
  return { status: res.status, body: JSON.parse(res.text) as never };
}

/**
 * Adds a passkey of `authenticator` for the signed-in `browser` as the page and its script
 * would (the page, the options, the ceremony, the form), answering the form's response.
 * Expects the session to be stepped up.
 */
export async function addPasskey(browser: TestBrowser, authenticator: SoftAuthenticator, opts: { name?: string; tamper?: Tamper } = {}): Promise<BrowserResponse> {
  const page = await browser.get('/console/account/passkeys/new');
  expect(page.status, page.location ?? page.text.slice(0, 300)).toBe(200);
  const { status, body } = await fetchOptions<PublicKeyCredentialCreationOptionsJSON>(browser, page.text);
  expect(status, JSON.stringify(body)).toBe(200);
  const response = authenticator.register(body.options!, opts.tamper);
  return browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response: JSON.stringify(response), name: opts.name ?? 'Work laptop' });
}

/**
 * Signs in with a passkey of `authenticator` from the sign-in page (a new browser by default),
 * as the page and its script would; `answer` may change the answer before it is posted.
 */
export async function passkeySignIn(t: TestApp, authenticator: SoftAuthenticator, opts: { browser?: TestBrowser; tamper?: Tamper; next?: string } = {}): Promise<{ browser: TestBrowser; res: BrowserResponse; challengeId: string; response: AuthenticationResponseJSON }> {
  const browser = opts.browser ?? new TestBrowser(t.app);
  const page = await browser.get(`/console/sign-in${opts.next ? `?next=${encodeURIComponent(opts.next)}` : ''}`);
  expect(page.status).toBe(200);
  const { status, body } = await fetchOptions<PublicKeyCredentialRequestOptionsJSON>(browser, page.text);
  expect(status, JSON.stringify(body)).toBe(200);
  const response = authenticator.assert(body.options!, opts.tamper);
  const res = await browser.post(ceremonyAction(page.text), { _csrf: ceremonyCsrf(page.text), challenge: body.challengeId!, response: JSON.stringify(response) });
  return { browser, res, challengeId: body.challengeId!, response };
}
