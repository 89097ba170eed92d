import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../lib/crypto.js';
import { deviceTagKey } from './admission.keys.js';
import { OpenedTagSecrets } from './admission.secrets.js';

/**
 * The issuers' tag secrets the online check keeps opened (admission.secrets.ts): each sealed
 * text opened once, the key it gives deriving the very tag keys the secret's bytes derive,
 * another sealed text (a reseal, another show) opened on its own, and at most its limit kept.
 */

const box = new SecretBox('secrets-test-secret-key-0123456789abcdef');

/** A box that counts its openings. */
function counting() {
  const counted = { opens: 0, open: (sealed: string) => (counted.opens++, box.open(sealed)) };
  return counted;
}

const sealedSecret = (secret = randomBytes(32)) => ({ secret, sealed: box.seal(secret.toString('base64url')) });

describe('OpenedTagSecrets', () => {
  it('opens a sealed secret once, and derives the tag keys its bytes derive', () => {
    const opener = counting();
    const secrets = new OpenedTagSecrets(opener);
    const a = sealedSecret();
    const device = randomBytes(32);
    for (let i = 0; i < 3; i++) expect(deviceTagKey(secrets.tagSecret(a.sealed), 42, 1, device).equals(deviceTagKey(a.secret, 42, 1, device))).toBe(true);
    expect(opener.opens).toBe(1);
    // The same secret sealed again (a reseal under a newer SECRET_KEY): another text, opened on its own, the same key.
    const resealed = box.seal(a.secret.toString('base64url'));
    expect(deviceTagKey(secrets.tagSecret(resealed), 42, 1, device).equals(deviceTagKey(a.secret, 42, 1, device))).toBe(true);
    // Another show's secret: never the first one's.
    const b = sealedSecret();
    expect(deviceTagKey(secrets.tagSecret(b.sealed), 42, 1, device).equals(deviceTagKey(a.secret, 42, 1, device))).toBe(false);
    expect(opener.opens).toBe(3);
    expect(secrets.size).toBe(3);
  });

  it('keeps at most its limit, dropping the oldest', () => {
    const opener = counting();
    const secrets = new OpenedTagSecrets(opener, 2);
    const [one, two, three] = [sealedSecret(), sealedSecret(), sealedSecret()];
    for (const s of [one!, two!, three!]) secrets.tagSecret(s.sealed);
    expect(secrets.size).toBe(2);
    secrets.tagSecret(three!.sealed);
    secrets.tagSecret(two!.sealed);
    expect(opener.opens).toBe(3);
    // The first was dropped: opened again.
    secrets.tagSecret(one!.sealed);
    expect(opener.opens).toBe(4);
  });
});
