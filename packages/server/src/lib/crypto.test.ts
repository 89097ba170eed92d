import { describe, expect, it } from 'vitest';
import { keyIdOf, parseKeyring, resealAt, SealedSecretError, SecretBox } from './crypto.js';

const OLD = 'old-secret-key-0123456789abcdef-0000';
const NEW = 'new-secret-key-0123456789abcdef-1111';
const NEWER = 'newer-secret-key-0123456789abcdef-22';

/**
 * Made by the SecretBox of before keyrings (one key, `v1.<iv>.<tag>.<ciphertext>`, no key id)
 * under the test key, and its signature of ('ticket-view', 'tkt_1:usr_1'): values already in
 * databases, e-mails and links when keyrings came.
 */
const LEGACY_KEY = 'test-secret-key-0123456789abcdef0123';
const LEGACY_SEALED = 'v1.FtW_HMXJgJihhDuD.Bir9-Lzx7foA-QOTfVfO3w.DwrvifWuNYdOKGAzNJambLoY-JbyFHOUMf5jZsk2UApjZI8MVeDP_C9LFm2shAmFM80-QoA0';
const LEGACY_PLAIN = 'whsec_bGVnYWN5LXNlY3JldC1zZWFsZWQtYmVmb3JlLWtleXJpbmdz';
const LEGACY_SIGNATURE = 'ZKItXAh1OCz3umwV6fyYjw';

describe('SECRET_KEY keyring (SecretBox)', () => {
  it('opens a value sealed under the old key after the rotation, and seals new values under the new key, naming it', () => {
    const before = new SecretBox(OLD);
    const sealedOld = before.seal('whsec_old-partner-secret');
    expect(sealedOld.startsWith(`v2.${keyIdOf(OLD)}.`)).toBe(true);

    const rotated = new SecretBox(`${NEW},${OLD}`);
    expect(rotated.keyIds).toEqual([keyIdOf(NEW), keyIdOf(OLD)]);
    expect(rotated.open(sealedOld)).toBe('whsec_old-partner-secret');
    const sealedNew = rotated.seal('ES9121000418450200051332');
    expect(sealedNew.split('.').slice(0, 2)).toEqual(['v2', keyIdOf(NEW)]);
    expect(rotated.open(sealedNew)).toBe('ES9121000418450200051332');
    // The key id is derived, short, and never the key or a part of it.
    expect(keyIdOf(NEW)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(keyIdOf(NEW)).not.toBe(keyIdOf(OLD));
    expect(sealedNew).not.toContain(NEW.slice(0, 8));
    // Two seals of one value differ (a fresh IV each time).
    expect(rotated.seal('same')).not.toBe(rotated.seal('same'));
  });

  it('fails clearly on a value of a key SECRET_KEY does not list, and on a tampered or malformed value', () => {
    const sealedOld = new SecretBox(OLD).seal('secret');
    const withoutOld = new SecretBox(NEW);
    expect(() => withoutOld.open(sealedOld)).toThrow(SealedSecretError);
    expect(() => withoutOld.open(sealedOld)).toThrow(`sealed under key ${keyIdOf(OLD)}, which SECRET_KEY does not list (it lists ${keyIdOf(NEW)})`);
    try {
      withoutOld.open(sealedOld);
    } catch (err) {
      expect((err as SealedSecretError).keyId).toBe(keyIdOf(OLD));
      expect((err as Error).message).not.toContain(OLD);
    }

    const box = new SecretBox(NEW);
    const sealed = box.seal('secret');
    const [v, id, iv, tag, body] = sealed.split('.') as [string, string, string, string, string];
    const flipped = body.slice(0, -2) + (body.at(-2) === 'A' ? 'B' : 'A') + body.at(-1);
    expect(() => box.open([v, id, iv, tag, flipped].join('.'))).toThrow(/does not authenticate/);
    // The key id is authenticated: naming another listed key does not open it either.
    const both = new SecretBox(`${NEW},${OLD}`);
    expect(() => both.open(['v2', keyIdOf(OLD), iv, tag, body].join('.'))).toThrow(/does not authenticate/);
    // A truncated tag is refused, not accepted as a weaker check.
    expect(() => box.open([v, id, iv, tag.slice(0, 6), body].join('.'))).toThrow(/does not authenticate/);
    for (const junk of ['', 'plain', 'v1.a.b', 'v2.x.y.z', 'v3.a.b.c.d']) expect(() => box.open(junk)).toThrow(SealedSecretError);
  });

  it('still opens and verifies what the single-key SecretBox of before keyrings made', () => {
    const single = new SecretBox(LEGACY_KEY);
    expect(single.open(LEGACY_SEALED)).toBe(LEGACY_PLAIN);
    expect(single.verify('ticket-view', 'tkt_1:usr_1', LEGACY_SIGNATURE)).toBe(true);
    // A single key signs exactly as before, so links already sent keep working.
    expect(single.sign('ticket-view', 'tkt_1:usr_1')).toBe(LEGACY_SIGNATURE);

    // In a keyring, the legacy value (it names no key) opens with whichever listed key sealed it.
    const rotated = new SecretBox(`${NEW},${LEGACY_KEY}`);
    expect(rotated.open(LEGACY_SEALED)).toBe(LEGACY_PLAIN);
    expect(rotated.verify('ticket-view', 'tkt_1:usr_1', LEGACY_SIGNATURE)).toBe(true);
    const resealed = rotated.reseal(LEGACY_SEALED)!;
    expect(resealed.split('.').slice(0, 2)).toEqual(['v2', keyIdOf(NEW)]);
    expect(new SecretBox(NEW).open(resealed)).toBe(LEGACY_PLAIN);

    expect(() => new SecretBox(NEW).open(LEGACY_SEALED)).toThrow(/sealed before key ids \(v1\) under a key SECRET_KEY does not list/);
  });

  it('signs with the newest key; signatures verify across the rotation and stop once the old key is removed', () => {
    const before = new SecretBox(OLD);
    const oldSignature = before.sign('partner-return-to', 'ptr_1\u0000https://acme.example/');

    const rotated = new SecretBox(`${NEW},${OLD}`);
    expect(rotated.verify('partner-return-to', 'ptr_1\u0000https://acme.example/', oldSignature)).toBe(true);
    const newSignature = rotated.sign('partner-return-to', 'ptr_1\u0000https://acme.example/');
    expect(newSignature).toBe(new SecretBox(NEW).sign('partner-return-to', 'ptr_1\u0000https://acme.example/'));
    expect(newSignature).not.toBe(oldSignature);
    // A process still on the old keyring does not accept what a restarted one signs: hence
    // "restart every process" right after adding the key (docs/operating.md, Secret rotation).
    expect(before.verify('partner-return-to', 'ptr_1\u0000https://acme.example/', newSignature)).toBe(false);

    // Purpose and data are still bound.
    expect(rotated.verify('ticket-view', 'ptr_1\u0000https://acme.example/', oldSignature)).toBe(false);
    expect(rotated.verify('partner-return-to', 'ptr_2\u0000https://acme.example/', oldSignature)).toBe(false);

    const after = new SecretBox(NEW);
    expect(after.verify('partner-return-to', 'ptr_1\u0000https://acme.example/', newSignature)).toBe(true);
    expect(after.verify('partner-return-to', 'ptr_1\u0000https://acme.example/', oldSignature)).toBe(false);
  });

  it('reseals under the newest key only what is not already, and names the row of a value it cannot open', () => {
    const rotated = new SecretBox(`${NEWER},${NEW},${OLD}`);
    const underOld = new SecretBox(OLD).seal('a');
    const underNew = new SecretBox(NEW).seal('b');
    const underNewest = rotated.seal('c');
    expect(rotated.reseal(underNewest)).toBeNull();
    for (const [sealed, plain] of [[underOld, 'a'], [underNew, 'b']] as const) {
      const again = rotated.reseal(sealed)!;
      expect(again.split('.')[1]).toBe(keyIdOf(NEWER));
      expect(new SecretBox(NEWER).open(again)).toBe(plain);
      expect(rotated.reseal(again)).toBeNull();
    }
    const unknown = new SecretBox('another-key-0123456789abcdef-33333').seal('d');
    expect(() => resealAt(rotated, unknown, 'partners ptr_1 (webhook_secret_sealed)')).toThrow(/^partners ptr_1 \(webhook_secret_sealed\): The secret was sealed under key /);
  });

  it('reads SECRET_KEY as a keyring: a single key whole, else comma-separated keys of 32 characters or more', () => {
    expect(parseKeyring(OLD)).toEqual([OLD]);
    expect(parseKeyring(`${NEW},${OLD}`)).toEqual([NEW, OLD]);
    // A lone key is taken whole, as before keyrings (spaces included).
    expect(parseKeyring(` ${OLD}`)).toEqual([` ${OLD}`]);
    expect(() => parseKeyring('short')).toThrow('the key must be at least 32 characters');
    expect(() => parseKeyring(`${NEW},short`)).toThrow('key 2 of 2 must be at least 32 characters');
    expect(() => parseKeyring(`${NEW}, ${OLD}`)).toThrow('key 2 of 2 starts or ends with a space');
    expect(() => parseKeyring(`${NEW},,${OLD}`)).toThrow('key 2 of 3 is empty');
    expect(() => parseKeyring(`${NEW},`)).toThrow('key 2 of 2 is empty');
    expect(() => parseKeyring(`${NEW},${NEW}`)).toThrow('a key is listed twice');
    expect(() => new SecretBox('short')).toThrow(/at least 32/);
  });
});
