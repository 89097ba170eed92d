import { CONTEXT, TAG_BYTES, codeText, deviceSignedBytes, taggedBytes, withContext, type AdmissionCode } from './admission-code.js';

/**
 * The rotating admission code's cryptography on the fan's phone and on an offline scanner, with
 * WebCrypto only (browsers and Node alike: `globalThis.crypto.subtle`), so the same code runs in
 * the ticket page, the scanner page, `@resale/client`'s verifier and the tests. The format is
 * admission-code.ts's; the issuer's side (certificates, device tag keys) is the server's.
 *
 * The device's keys are made non-extractable: a page's script (or DevTools) can use them on that
 * browser profile but never read them out, so a copied page or a dumped storage cannot make
 * codes elsewhere.
 */

/** WebCrypto's types, read off the runtime's own declaration (the DOM's in a browser build, Node's on the server). */
type Subtle = typeof globalThis.crypto.subtle;
/** A WebCrypto key. */
export type Key = Awaited<ReturnType<Subtle['importKey']>>;
type KeyPair = { privateKey: Key; publicKey: Key };

const subtle = (): Subtle => globalThis.crypto.subtle;
const ED25519 = { name: 'Ed25519' } as const;

/** A phone's key pair for a ticket: the private half non-extractable, the public half's 32 raw bytes for the certificate. */
export interface DeviceKeys {
  privateKey: Key;
  publicKey: Uint8Array<ArrayBuffer>;
}

/** Makes a device key pair (Ed25519; the private key can sign but never be exported). */
export async function generateDeviceKeys(): Promise<DeviceKeys> {
  const pair = (await subtle().generateKey(ED25519, false, ['sign', 'verify'])) as KeyPair;
  return { privateKey: pair.privateKey, publicKey: new Uint8Array(await subtle().exportKey('raw', pair.publicKey)) };
}

/** The device's tag key (32 bytes from the service, once) as a non-extractable HMAC-SHA256 key that can only sign. */
export async function importTagKey(raw: Uint8Array<ArrayBuffer>): Promise<Key> {
  return await subtle().importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/**
 * The code of `step` for a certified device: the tag and the device's signature over the
 * certificate and the step, as base32 text (what the QR code carries).
 */
export async function makeCode(keys: { device: Key; tag: Key }, certificate: Uint8Array, step: number): Promise<string> {
  const tagged = taggedBytes(certificate, step);
  const tag = new Uint8Array(await subtle().sign('HMAC', keys.tag, withContext(CONTEXT.tag, tagged))).slice(0, TAG_BYTES);
  const signed = deviceSignedBytes(tagged, tag);
  const signature = new Uint8Array(await subtle().sign(ED25519, keys.device, withContext(CONTEXT.code, signed)));
  return codeText(signed, signature);
}

/** An issuer's public key (32 raw bytes, as a scanner kit lists it) for {@link signaturesValid}. */
export async function importIssuerKey(raw: Uint8Array<ArrayBuffer>): Promise<Key> {
  return await subtle().importKey('raw', raw, ED25519, false, ['verify']);
}

/**
 * Both signatures of a code, as a scanner without the service checks them: the certificate by
 * the show's issuer key, the code by the device key the certificate names. Neither needs a
 * secret; together they prove the code came from a phone the service certified for that ticket.
 */
export async function signaturesValid(code: AdmissionCode, issuer: Key): Promise<boolean> {
  const certificate = await subtle().verify(ED25519, issuer, code.issuerSignature as Uint8Array<ArrayBuffer>, withContext(CONTEXT.cert, code.head));
  if (!certificate) return false;
  const device = await subtle().importKey('raw', code.devicePublicKey as Uint8Array<ArrayBuffer>, ED25519, false, ['verify']);
  return await subtle().verify(ED25519, device, code.deviceSignature as Uint8Array<ArrayBuffer>, withContext(CONTEXT.code, code.deviceSigned));
}
