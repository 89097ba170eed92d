import { createHash, createHmac, createPrivateKey, createSecretKey, generateKeyPairSync, randomBytes, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import { CONTEXT, TAG_BYTES, withContext, type AdmissionCode } from '@resale/shared/admission-code';

/**
 * The issuer's side of the rotating admission code (the format: @resale/shared/admission-code),
 * with node:crypto: a show's issuer key pair and tag secret, the certificates it signs for a
 * phone, the tag key it derives for that phone, and the online check of a code's tag.
 *
 * Why a tag beside the device's signature: an Ed25519 verification costs about 0.1 ms, and a
 * code carries two; the service checks a keyed hash instead (about 1 µs), so one process
 * verifies thousands of scans a second with room for the admission's write. The tag key is
 * derived, never stored: HMAC(the show's secret, the ticket's serial and epoch, the device key),
 * so the service keeps one secret per show, and a new epoch (a resale) makes every tag key of
 * the old holder worthless. Scanners, which must hold no secret, check the two signatures.
 */

/** A show's issuer: its Ed25519 key pair, the 2-byte tag naming it in codes, and the secret tag keys derive from. */
export interface Issuer {
  keyTag: number;
  /** 32 raw bytes (what a scanner kit lists). */
  publicKey: Buffer;
  /** PKCS #8 DER: stored sealed. */
  privateKey: Buffer;
  /** 32 bytes: stored sealed. */
  tagSecret: Buffer;
}

/** The raw public key's offset in Ed25519's SPKI DER (a fixed 12-byte prefix). */
const SPKI_PREFIX = 12;

/** Makes a show's issuer: a fresh key pair and tag secret; its `keyTag` is the public key's SHA-256, first two bytes. */
export function newIssuer(): Issuer {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX);
  return { keyTag: keyTagOf(raw), publicKey: raw, privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }), tagSecret: randomBytes(32) };
}

/** The 2-byte tag of an issuer's public key, as codes carry it. */
export function keyTagOf(publicKey: Uint8Array): number {
  return createHash('sha256').update(publicKey).digest().readUInt16BE(0);
}

/** The issuer's private key for {@link signCertificate}, from its stored PKCS #8 bytes. */
export function issuerKey(privateKey: Buffer): KeyObject {
  return createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' });
}

/** The issuer's signature (64 bytes) over a certificate's head (`certificateHead`). */
export function signCertificate(key: KeyObject, head: Uint8Array): Buffer {
  return sign(null, withContext(CONTEXT.cert, head), key);
}

/**
 * The tag key of one certified phone: HMAC(the show's secret, the serial, the epoch, the device's
 * public key). The secret as bytes, or as a secret KeyObject made once (`createSecretKey`,
 * admission.secrets.ts), which the online check keeps to skip opening and preparing it per scan.
 */
export function deviceTagKey(tagSecret: Buffer | KeyObject, serial: number, epoch: number, devicePublicKey: Uint8Array): Buffer {
  const ids = Buffer.alloc(6);
  ids.writeUInt32BE(serial, 0);
  ids.writeUInt16BE(epoch, 4);
  return createHmac('sha256', tagSecret).update(CONTEXT.deviceTagKey).update(ids).update(devicePublicKey).digest();
}

/** Whether a code's tag is the one its phone's tag key makes (compared in constant time). */
export function tagValid(tagKey: Buffer, code: Pick<AdmissionCode, 'tagged' | 'tag'>): boolean {
  // The key as a KeyObject: Node prepares a key given as bytes anew inside createHmac, about 9 µs
  // against 2.4 with createSecretKey (measured on Node 24), and the online check pays it per scan.
  const expected = createHmac('sha256', createSecretKey(tagKey)).update(withContext(CONTEXT.tag, code.tagged)).digest().subarray(0, TAG_BYTES);
  return code.tag.length === TAG_BYTES && timingSafeEqual(expected, code.tag);
}
