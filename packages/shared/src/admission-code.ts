/**
 * The rotating admission code's wire format, version 1: what a fan's phone shows as a QR code
 * for a show with ticketShield, what the service checks online and what a scanner checks
 * offline. Defined once here and read by all three; no cryptography in this module (see
 * admission-crypto.ts for the device's and the scanner's, and the server's
 * domain/admission for the issuer's).
 *
 * A code is 188 bytes, sent as RFC 4648 base32 (upper case, no padding: 301 characters, QR
 * alphanumeric mode, version 10 at error correction M):
 *
 * | offset | bytes | field |
 * |---|---|---|
 * | 0 | 1 | version and algorithm: {@link CODE_VERSION} (Ed25519) |
 * | 1 | 2 | `keyTag`: which of the show's issuer keys certified the device (unique among the partner's live shows) |
 * | 3 | 4 | `serial`: the ticket's number within its show |
 * | 7 | 2 | `epoch`: the credential's generation (a resale, an owner change or a new phone moves it on) |
 * | 9 | 1 | `rotation`: seconds per step, {@link ROTATION_MIN}–{@link ROTATION_MAX} |
 * | 10 | 4 | `notAfter`: Unix minutes after which no code of this certificate is valid |
 * | 14 | 32 | the device's Ed25519 public key (made on the phone; its private half never leaves it) |
 * | 46 | 64 | the issuer's signature over {@link CONTEXT}.cert ‖ bytes 0–45: the certificate |
 * | 110 | 4 | `step`: ⌊Unix seconds / rotation⌋ |
 * | 114 | 10 | `tag`: HMAC-SHA256(the device's tag key, {@link CONTEXT}.tag ‖ bytes 0–113), first 10 bytes |
 * | 124 | 64 | the device's signature over {@link CONTEXT}.code ‖ bytes 0–123 |
 *
 * The service checks the tag only (a keyed hash: tens of thousands a second); a scanner
 * without the service checks both signatures (it holds no secret: the issuer's public key is in
 * its kit). Each step's code is valid from {@link WINDOW}.past steps before to
 * {@link WINDOW}.future after the verifier's step, so a screenshot dies within seconds.
 */

/** The version byte of codes with an Ed25519 device key. */
export const CODE_VERSION = 0x53;
/** Bytes of a code. */
export const CODE_BYTES = 188;
/** Bytes of the certificate's signed head (version to the device key). */
export const HEAD_BYTES = 46;
/** Bytes of a certificate: its head and the issuer's signature. */
export const CERTIFICATE_BYTES = 110;
/** Bytes the tag is computed over (the certificate and the step). */
export const TAGGED_BYTES = 114;
/** Bytes of the tag kept. */
export const TAG_BYTES = 10;
/** Bytes the device signs (everything before its signature). */
export const DEVICE_SIGNED_BYTES = 124;
/** Characters of a code's base32 text. */
export const CODE_TEXT_LENGTH = Math.ceil((CODE_BYTES * 8) / 5);

/** Seconds per step: the shortest, the longest and the default (per partner or show). */
export const ROTATION_MIN = 5;
export const ROTATION_MAX = 60;
export const ROTATION_DEFAULT = 15;

/** Which code a venue's scanners read on a ticketShield show: the partner's own QR, or this rotating code. */
export const VENUE_SCANS = ['partner', 'rotating'] as const;
export type VenueScans = (typeof VENUE_SCANS)[number];

/** Steps a code stays valid around the verifier's: two behind (a scan that took a moment, a slow clock), one ahead (a fast clock). */
export const WINDOW = { past: 2, future: 1 } as const;

/** Domain separation: what each key signs or tags starts with its own label, so no signature serves another purpose. */
export const CONTEXT = { cert: 'rs/cert/1', tag: 'rs/tag/1', code: 'rs/code/1', deviceTagKey: 'rs/kdev/1' } as const;

/** What a certificate says: which ticket (show key, serial, epoch), how it rotates, until when, and the device's public key. */
export interface CertificateFields {
  keyTag: number;
  serial: number;
  epoch: number;
  rotation: number;
  /** Unix minutes. */
  notAfterMinutes: number;
  /** 32 bytes. */
  devicePublicKey: Uint8Array;
}

/** A decoded code: its fields and the byte ranges each signature and the tag cover. */
export interface AdmissionCode extends CertificateFields {
  step: number;
  /** The 188 bytes. */
  bytes: Uint8Array;
  /** Bytes 0–45: what the issuer signed (after {@link CONTEXT}.cert). */
  head: Uint8Array;
  /** Bytes 0–109: the certificate. */
  certificate: Uint8Array;
  issuerSignature: Uint8Array;
  /** Bytes 0–113: what the tag covers (after {@link CONTEXT}.tag). */
  tagged: Uint8Array;
  tag: Uint8Array;
  /** Bytes 0–123: what the device signed (after {@link CONTEXT}.code). */
  deviceSigned: Uint8Array;
  deviceSignature: Uint8Array;
}

/** Why a text is not a code at all. */
export type ParseFailure = 'malformed';

const U16 = 0xffff;
const U32 = 0xffffffff;

/**
 * The certificate's head (46 bytes) for the issuer to sign.
 *
 * @throws RangeError when a field does not fit its bytes or the device key is not 32 bytes
 */
export function certificateHead(c: CertificateFields): Uint8Array<ArrayBuffer> {
  if (!inRange(c.keyTag, U16) || !inRange(c.serial, U32) || !inRange(c.epoch, U16) || !inRange(c.notAfterMinutes, U32)) throw new RangeError('admission code: a certificate field is out of range');
  if (!Number.isInteger(c.rotation) || c.rotation < ROTATION_MIN || c.rotation > ROTATION_MAX) throw new RangeError(`admission code: rotation must be ${ROTATION_MIN}–${ROTATION_MAX} seconds`);
  if (c.devicePublicKey.length !== 32) throw new RangeError('admission code: the device key is 32 bytes');
  const out = new Uint8Array(HEAD_BYTES);
  const view = new DataView(out.buffer);
  out[0] = CODE_VERSION;
  view.setUint16(1, c.keyTag);
  view.setUint32(3, c.serial);
  view.setUint16(7, c.epoch);
  out[9] = c.rotation;
  view.setUint32(10, c.notAfterMinutes);
  out.set(c.devicePublicKey, 14);
  return out;
}

/** The certificate (110 bytes): its head and the issuer's 64-byte signature. */
export function certificateBytes(head: Uint8Array, issuerSignature: Uint8Array): Uint8Array<ArrayBuffer> {
  if (head.length !== HEAD_BYTES || issuerSignature.length !== 64) throw new RangeError('admission code: a certificate is a 46-byte head and a 64-byte signature');
  const out = new Uint8Array(CERTIFICATE_BYTES);
  out.set(head, 0);
  out.set(issuerSignature, HEAD_BYTES);
  return out;
}

/** What the tag covers for `step`: the certificate and the step (114 bytes). */
export function taggedBytes(certificate: Uint8Array, step: number): Uint8Array<ArrayBuffer> {
  if (certificate.length !== CERTIFICATE_BYTES) throw new RangeError('admission code: a certificate is 110 bytes');
  if (!inRange(step, U32)) throw new RangeError('admission code: step out of range');
  const out = new Uint8Array(TAGGED_BYTES);
  out.set(certificate, 0);
  new DataView(out.buffer).setUint32(CERTIFICATE_BYTES, step);
  return out;
}

/** What the device signs: the tagged bytes and the tag (124 bytes). */
export function deviceSignedBytes(tagged: Uint8Array, tag: Uint8Array): Uint8Array<ArrayBuffer> {
  if (tagged.length !== TAGGED_BYTES || tag.length !== TAG_BYTES) throw new RangeError('admission code: 114 tagged bytes and a 10-byte tag');
  const out = new Uint8Array(DEVICE_SIGNED_BYTES);
  out.set(tagged, 0);
  out.set(tag, TAGGED_BYTES);
  return out;
}

/** The code's text: the device-signed bytes and the device's signature, in base32. */
export function codeText(deviceSigned: Uint8Array, deviceSignature: Uint8Array): string {
  if (deviceSigned.length !== DEVICE_SIGNED_BYTES || deviceSignature.length !== 64) throw new RangeError('admission code: 124 signed bytes and a 64-byte signature');
  const out = new Uint8Array(CODE_BYTES);
  out.set(deviceSigned, 0);
  out.set(deviceSignature, DEVICE_SIGNED_BYTES);
  return base32Encode(out);
}

/**
 * Decodes a scanned text. Tolerant of what scanners add (surrounding white space, lower case);
 * anything else (a partner's own QR, a truncated scan, another version) is `malformed`.
 */
export function parseCode(text: string): { ok: true; code: AdmissionCode } | { ok: false; reason: ParseFailure } {
  const trimmed = text.trim().toUpperCase();
  if (trimmed.length !== CODE_TEXT_LENGTH) return { ok: false, reason: 'malformed' };
  const bytes = base32Decode(trimmed);
  if (!bytes || bytes.length !== CODE_BYTES || bytes[0] !== CODE_VERSION) return { ok: false, reason: 'malformed' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rotation = bytes[9]!;
  if (rotation < ROTATION_MIN || rotation > ROTATION_MAX) return { ok: false, reason: 'malformed' };
  return {
    ok: true,
    code: {
      keyTag: view.getUint16(1),
      serial: view.getUint32(3),
      epoch: view.getUint16(7),
      rotation,
      notAfterMinutes: view.getUint32(10),
      devicePublicKey: bytes.subarray(14, HEAD_BYTES),
      step: view.getUint32(CERTIFICATE_BYTES),
      bytes,
      head: bytes.subarray(0, HEAD_BYTES),
      certificate: bytes.subarray(0, CERTIFICATE_BYTES),
      issuerSignature: bytes.subarray(HEAD_BYTES, CERTIFICATE_BYTES),
      tagged: bytes.subarray(0, TAGGED_BYTES),
      tag: bytes.subarray(TAGGED_BYTES, DEVICE_SIGNED_BYTES),
      deviceSigned: bytes.subarray(0, DEVICE_SIGNED_BYTES),
      deviceSignature: bytes.subarray(DEVICE_SIGNED_BYTES, CODE_BYTES),
    },
  };
}

/** The step of `nowMs` (milliseconds since the epoch) at `rotation` seconds a step. */
export function stepAt(nowMs: number, rotation: number): number {
  return Math.floor(nowMs / 1000 / rotation);
}

/**
 * Whether a code's step and certificate are current at `nowMs`: `expired` more than
 * {@link WINDOW}.past steps behind or past the certificate's `notAfter`, `not_yet_valid` more
 * than {@link WINDOW}.future ahead.
 */
export function timeVerdict(code: Pick<AdmissionCode, 'step' | 'rotation' | 'notAfterMinutes'>, nowMs: number): 'current' | 'expired' | 'not_yet_valid' {
  if (nowMs > code.notAfterMinutes * 60_000) return 'expired';
  const now = stepAt(nowMs, code.rotation);
  if (code.step < now - WINDOW.past) return 'expired';
  if (code.step > now + WINDOW.future) return 'not_yet_valid';
  return 'current';
}

/** `label` (UTF-8) followed by `bytes`: what a key signs or tags, separated by purpose. */
export function withContext(label: string, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = new TextEncoder().encode(label);
  const out = new Uint8Array(prefix.length + bytes.length);
  out.set(prefix, 0);
  out.set(bytes, prefix.length);
  return out;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** The value of each character code of {@link ALPHABET}, -1 for any other below 128 (a table: a door decodes thousands of codes a minute). */
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** RFC 4648 base32, upper case, without padding. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes of unpadded upper-case base32, or null for any other character or leftover bits that are not zero. */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> | null {
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let i = 0;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    const v = c < 128 ? VALUES[c]! : -1;
    if (v < 0) return null;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out[i++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  // A canonical encoding leaves only zero bits over: one code, one text.
  return value === 0 ? out : null;
}

function inRange(n: number, max: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= max;
}
