import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, certificateBytes, certificateHead, parseCode, stepAt, type AdmissionCode } from '@resale/shared/admission-code';
import { generateDeviceKeys, importIssuerKey, importTagKey, makeCode, signaturesValid } from '@resale/shared/admission-crypto';
import { deviceTagKey, issuerKey, keyTagOf, newIssuer, signCertificate, tagValid } from './admission.keys.js';

/**
 * The rotating code's cryptography end to end, as each party holds it: the service's issuer
 * (node:crypto) certifies a phone's key and derives its tag key; the phone (WebCrypto,
 * non-extractable keys) makes a code each step; the service checks the tag; a scanner checks
 * both signatures with the issuer's public key only.
 */

const NOW = Date.parse('2027-06-01T20:00:00Z');

async function certifiedPhone(opts: { serial?: number; epoch?: number } = {}) {
  const issuer = newIssuer();
  const phone = await generateDeviceKeys();
  const fields = { keyTag: issuer.keyTag, serial: opts.serial ?? 42, epoch: opts.epoch ?? 1, rotation: 15, notAfterMinutes: Math.floor(NOW / 60_000) + 12 * 60, devicePublicKey: phone.publicKey };
  const head = certificateHead(fields);
  const certificate = certificateBytes(head, signCertificate(issuerKey(issuer.privateKey), head));
  const tagKey = deviceTagKey(issuer.tagSecret, fields.serial, fields.epoch, phone.publicKey);
  const keys = { device: phone.privateKey, tag: await importTagKey(new Uint8Array(tagKey)) };
  const code = async (step: number) => await makeCode(keys, certificate, step);
  return { issuer, phone, fields, certificate, tagKey, code };
}

const parsed = (text: string): AdmissionCode => {
  const r = parseCode(text);
  if (!r.ok) throw new Error('malformed');
  return r.code;
};

describe('the rotating code’s keys', () => {
  it('makes a code the service accepts by its tag and a scanner by its two signatures', async () => {
    const { issuer, fields, tagKey, code } = await certifiedPhone();
    const text = await code(stepAt(NOW, 15));
    const c = parsed(text);
    expect(c).toMatchObject({ keyTag: issuer.keyTag, serial: 42, epoch: 1, rotation: 15, step: stepAt(NOW, 15) });
    expect(keyTagOf(issuer.publicKey)).toBe(fields.keyTag);
    expect(tagValid(tagKey, c)).toBe(true);
    expect(await signaturesValid(c, await importIssuerKey(new Uint8Array(issuer.publicKey)))).toBe(true);
    // Each step's code differs.
    expect(await code(stepAt(NOW, 15) + 1)).not.toBe(text);
  });

  it('refuses a code whose step was edited to stretch a screenshot, or any other byte changed', async () => {
    const { issuer, tagKey, code } = await certifiedPhone();
    const scanner = await importIssuerKey(new Uint8Array(issuer.publicKey));
    const bytes = base32Decode(await code(stepAt(NOW, 15)))!;
    for (const at of [3, 7, 13, 20, 60, 112, 115, 130]) {
      const edited = bytes.slice();
      edited[at] = edited[at]! ^ 1;
      const r = parseCode(base32Encode(edited));
      if (!r.ok) continue; // a version or rotation byte: not even a code
      expect(tagValid(tagKey, r.code) && (await signaturesValid(r.code, scanner)), `byte ${at}`).toBe(false);
    }
  });

  it('gives each serial, epoch and phone its own tag key: the old holder’s codes fail after a resale', async () => {
    const { issuer, phone, code } = await certifiedPhone({ epoch: 1 });
    const c = parsed(await code(stepAt(NOW, 15)));
    // After a resale the service derives for epoch 2: the seller's phone (epoch 1 certificate) no longer matches.
    expect(tagValid(deviceTagKey(issuer.tagSecret, 42, 2, phone.publicKey), c)).toBe(false);
    expect(tagValid(deviceTagKey(issuer.tagSecret, 43, 1, phone.publicKey), c)).toBe(false);
    expect(tagValid(deviceTagKey(newIssuer().tagSecret, 42, 1, phone.publicKey), c)).toBe(false);
  });

  it('refuses a certificate forged with what a scanner holds, and a phone certified by another show', async () => {
    const { issuer, code } = await certifiedPhone();
    const other = await certifiedPhone();
    // Another show's phone presents its valid code: this show's issuer key refuses its certificate.
    expect(await signaturesValid(parsed(await other.code(stepAt(NOW, 15))), await importIssuerKey(new Uint8Array(issuer.publicKey)))).toBe(false);
    // A certificate "signed" with garbage, for a phone of the forger's: refused.
    const forger = await generateDeviceKeys();
    const head = certificateHead({ keyTag: issuer.keyTag, serial: 42, epoch: 1, rotation: 15, notAfterMinutes: Math.floor(NOW / 60_000) + 60, devicePublicKey: forger.publicKey });
    const forged = certificateBytes(head, new Uint8Array(64));
    const text = await makeCode({ device: forger.privateKey, tag: await importTagKey(new Uint8Array(32)) }, forged, stepAt(NOW, 15));
    expect(await signaturesValid(parsed(text), await importIssuerKey(new Uint8Array(issuer.publicKey)))).toBe(false);
    expect(await code(1)).toBeTruthy();
  });

  it('keeps the phone’s keys in the browser: neither can be exported', async () => {
    const { phone, tagKey } = await certifiedPhone();
    await expect(crypto.subtle.exportKey('pkcs8', phone.privateKey)).rejects.toThrow();
    await expect(crypto.subtle.exportKey('raw', await importTagKey(new Uint8Array(tagKey)))).rejects.toThrow();
  });
});
