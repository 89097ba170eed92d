import { describe, expect, it } from 'vitest';
import {
  base32Decode,
  base32Encode,
  certificateBytes,
  certificateHead,
  CODE_BYTES,
  CODE_TEXT_LENGTH,
  codeText,
  deviceSignedBytes,
  parseCode,
  stepAt,
  taggedBytes,
  timeVerdict,
} from './admission-code.js';

const device = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const FIELDS = { keyTag: 0x1a2b, serial: 60_000, epoch: 3, rotation: 15, notAfterMinutes: 31_000_000, devicePublicKey: device };

/** A code with made-up signatures and tag (the format only; the cryptography is tested with the issuer). */
function fakeCode(step: number, fields = FIELDS): string {
  const cert = certificateBytes(certificateHead(fields), new Uint8Array(64).fill(7));
  return codeText(deviceSignedBytes(taggedBytes(cert, step), new Uint8Array(10).fill(9)), new Uint8Array(64).fill(5));
}

describe('the admission code format', () => {
  it('is 188 bytes in 301 base32 characters, which decode back to every field', () => {
    const text = fakeCode(123_456_789);
    expect(text).toHaveLength(CODE_TEXT_LENGTH);
    expect(CODE_TEXT_LENGTH).toBe(301);
    // QR alphanumeric mode: digits and upper-case letters only.
    expect(text).toMatch(/^[A-Z2-7]+$/);
    const parsed = parseCode(`  ${text.toLowerCase()}\n`);
    if (!parsed.ok) throw new Error('not parsed');
    expect(parsed.code).toMatchObject({ keyTag: 0x1a2b, serial: 60_000, epoch: 3, rotation: 15, notAfterMinutes: 31_000_000, step: 123_456_789 });
    expect([...parsed.code.devicePublicKey]).toEqual([...device]);
    expect(parsed.code.bytes).toHaveLength(CODE_BYTES);
    expect([...parsed.code.tag]).toEqual(new Array(10).fill(9));
    expect([...parsed.code.issuerSignature]).toEqual(new Array(64).fill(7));
    expect([...parsed.code.deviceSignature]).toEqual(new Array(64).fill(5));
  });

  it('refuses what is not a code: another QR, a truncated scan, a wrong version or rotation, a non-canonical text', () => {
    const text = fakeCode(1);
    for (const bad of ['', 'TKT-0001-ABCD', text.slice(0, -1), `${text}A`, text.replace(/^./, '1'), text.slice(0, -1) + '8']) expect(parseCode(bad)).toEqual({ ok: false, reason: 'malformed' });
    // Version byte 0x50 (reserved for a P-256 device key) is not version 1's.
    const bytes = base32Decode(text)!;
    bytes[0] = 0x50;
    expect(parseCode(base32Encode(bytes))).toEqual({ ok: false, reason: 'malformed' });
    bytes[0] = 0x53;
    bytes[9] = 61;
    expect(parseCode(base32Encode(bytes))).toEqual({ ok: false, reason: 'malformed' });
    // The last character carries 3 spare bits: only zeros are the canonical text.
    const last = text.at(-1)!;
    const other = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(last) ^ 1)]!;
    expect(parseCode(text.slice(0, -1) + other)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses to build a certificate with fields out of range', () => {
    expect(() => certificateHead({ ...FIELDS, rotation: 4 })).toThrow(RangeError);
    expect(() => certificateHead({ ...FIELDS, rotation: 61 })).toThrow(RangeError);
    expect(() => certificateHead({ ...FIELDS, serial: 2 ** 32 })).toThrow(RangeError);
    expect(() => certificateHead({ ...FIELDS, epoch: 70_000 })).toThrow(RangeError);
    expect(() => certificateHead({ ...FIELDS, devicePublicKey: new Uint8Array(31) })).toThrow(RangeError);
  });

  it('is current two steps behind to one ahead, and never past the certificate’s end', () => {
    const now = Date.parse('2027-06-01T20:00:07Z');
    const step = stepAt(now, 15);
    expect(step).toBe(Math.floor(now / 15_000));
    const at = (s: number, notAfterMinutes = FIELDS.notAfterMinutes) => timeVerdict({ step: s, rotation: 15, notAfterMinutes }, now);
    expect([at(step - 3), at(step - 2), at(step), at(step + 1), at(step + 2)]).toEqual(['expired', 'current', 'current', 'current', 'not_yet_valid']);
    expect(at(step, Math.floor(now / 60_000) - 1)).toBe('expired');
  });

  it('encodes base32 as RFC 4648 does', () => {
    const enc = (s: string) => base32Encode(new TextEncoder().encode(s));
    expect([enc(''), enc('f'), enc('fo'), enc('foo'), enc('foob'), enc('fooba'), enc('foobar')]).toEqual(['', 'MY', 'MZXQ', 'MZXW6', 'MZXW6YQ', 'MZXW6YTB', 'MZXW6YTBOI']);
    expect(new TextDecoder().decode(base32Decode('MZXW6YTBOI')!)).toBe('foobar');
    expect(base32Decode('MZXW6YTBO1')).toBeNull();
  });
});
