import type { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
// The published module, as a venue's integrator imports it (`@resale/client/admission`): the built files.
import { createKitVerifier, mergeKit, type ScannerKit } from '../dist/admission/admission-kit.js';
import { base32Decode, base32Encode, certificateBytes, certificateHead, CONTEXT, stepAt, withContext } from '../dist/admission/admission-code.js';
import { generateDeviceKeys, importTagKey, makeCode } from '../dist/admission/admission-crypto.js';

/**
 * The offline verifier `@resale/client/admission` ships, from its built files: a show's issuer and
 * phones made here the way the service and the fan's page make them (Ed25519 and HMAC through
 * WebCrypto), a kit as `GET /v1/shows/{showId}/scanner-kit` answers it, and every verdict a door
 * can reach without the service. (The service's own kits against the same verifier:
 * packages/server/src/http/api/scanner-kit.test.ts.)
 */

const NOW = Date.parse('2027-06-01T19:40:00Z');
const ROTATION = 15;
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A show's issuer: its tag, its key pair and a kit of `tickets` (serial → state, lowest epoch). */
async function show(tag = 7) {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as unknown as webcrypto.CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  /** A phone certified for `serial` at `epoch`; its code at a moment. */
  const phone = async (serial: number, epoch = 1) => {
    const device = await generateDeviceKeys();
    const head = certificateHead({ keyTag: tag, serial, epoch, rotation: ROTATION, notAfterMinutes: Math.floor(NOW / 60_000) + 600, devicePublicKey: device.publicKey });
    const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, withContext(CONTEXT.cert, head)));
    const tagKey = await importTagKey(crypto.getRandomValues(new Uint8Array(32)));
    const certificate = certificateBytes(head, signature);
    return async (at = NOW) => await makeCode({ device: device.privateKey, tag: tagKey }, certificate, stepAt(at, ROTATION));
  };
  const kit = (rows: { serial: number; ticketId: string; minEpoch?: number; state?: ScannerKit['tickets']['state'][number] }[], extra: Partial<ScannerKit> = {}): ScannerKit => ({
    v: 1,
    externalReferenceEventId: 'tour-2027',
    showId: 'night-1',
    serverTime: new Date(NOW).toISOString(),
    validUntil: new Date(NOW + 12 * 3_600_000).toISOString(),
    window: { past: 2, future: 1 },
    keys: [{ tag, publicKey: b64url(publicKey) }],
    tickets: {
      serial: rows.map((r) => r.serial),
      ticketId: rows.map((r) => r.ticketId),
      section: rows.map(() => 'B'),
      row: rows.map(() => '4'),
      seat: rows.map((r) => String(r.serial)),
      minEpoch: rows.map((r) => r.minEpoch ?? 1),
      state: rows.map((r) => r.state ?? ''),
    },
    ...extra,
  });
  return { phone, kit };
}

describe('@resale/client/admission: checking rotating codes offline', () => {
  it('admits a current code once, a retry of the same scan as a repeat, and refuses a second entry', async () => {
    const { phone, kit } = await show();
    const code = await phone(1);
    const door = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    const text = await code();
    expect(await door.verify(text, NOW)).toEqual({ valid: true, reason: 'admitted', repeat: false, ticket: { serial: 1, ticketId: 'tk-1', section: 'B', row: '4', seat: '1' } });
    expect(await door.verify(` ${text.toLowerCase()}\n`, NOW + 1_000)).toMatchObject({ valid: true, reason: 'admitted', repeat: true });
    expect(await door.verify(await code(NOW + 15_000), NOW + 15_000)).toMatchObject({ valid: false, reason: 'already_admitted' });
    expect([...door.admitted.entries()]).toEqual([[1, text]]);
  });

  it('refuses screenshots, codes from the future, forgeries, junk, other shows and an old kit', async () => {
    const { phone, kit } = await show();
    const code = await phone(1);
    const door = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    // Two steps behind to one ahead of the door's clock.
    expect(await door.verify(await code(NOW - 3 * 15_000), NOW)).toMatchObject({ valid: false, reason: 'expired', ticket: { ticketId: 'tk-1' } });
    expect(await door.verify(await code(NOW + 2 * 15_000), NOW)).toMatchObject({ valid: false, reason: 'not_yet_valid' });
    const bytes = base32Decode(await code())!;
    bytes[150] = bytes[150]! ^ 1; // the phone's signature
    expect(await door.verify(base32Encode(bytes), NOW)).toMatchObject({ valid: false, reason: 'forged', ticket: null });
    expect(await door.verify('TKT-1042', NOW)).toMatchObject({ valid: false, reason: 'malformed' });
    // A code of another show (another issuer key): none of this kit's tickets.
    const other = await show(8);
    expect(await door.verify(await (await other.phone(1))(), NOW)).toMatchObject({ valid: false, reason: 'unknown', ticket: null });
    // Another issuer signing with this show's tag: its certificate does not verify.
    const impostor = await show(7);
    expect(await door.verify(await (await impostor.phone(1))(), NOW)).toMatchObject({ valid: false, reason: 'forged' });
    expect(await door.verify(await code(), NOW + 13 * 3_600_000)).toMatchObject({ valid: false, reason: 'kit_expired' });
    expect(door.admitted.size).toBe(0);
  });

  it('refuses the seller’s phone after a resale and tickets the kit marks, from the kit the door holds', async () => {
    const { phone, kit } = await show();
    const seller = await phone(1, 1);
    const buyer = await phone(1, 2);
    const door = await createKitVerifier(
      kit([
        { serial: 1, ticketId: 'tk-1', minEpoch: 2 },
        { serial: 2, ticketId: 'tk-2', state: 'listed' },
        { serial: 3, ticketId: 'tk-3', state: 'admitted' },
        { serial: 4, ticketId: 'tk-4', state: 'cancelled' },
      ]),
    );
    expect(await door.verify(await seller(), NOW)).toMatchObject({ valid: false, reason: 'revoked', ticket: { ticketId: 'tk-1' } });
    expect(await door.verify(await (await phone(2))(), NOW)).toMatchObject({ valid: false, reason: 'listed' });
    expect(await door.verify(await (await phone(3))(), NOW)).toMatchObject({ valid: false, reason: 'already_admitted' });
    expect(await door.verify(await (await phone(4))(), NOW)).toMatchObject({ valid: false, reason: 'cancelled' });
    expect(await door.verify(await buyer(), NOW)).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'tk-1' } });
  });

  it('merges a delta (`?since=`) into the door’s kit by serial; a whole kit replaces it', async () => {
    const { kit } = await show();
    const base = kit([{ serial: 1, ticketId: 'tk-1' }, { serial: 3, ticketId: 'tk-3' }]);
    const delta = kit([{ serial: 2, ticketId: 'tk-2' }, { serial: 3, ticketId: 'tk-3', state: 'admitted' }], { since: base.serverTime, serverTime: new Date(NOW + 30_000).toISOString() });
    const merged = mergeKit(base, delta);
    expect(merged.since).toBeUndefined();
    expect(merged.serverTime).toBe(new Date(NOW + 30_000).toISOString());
    expect(merged.tickets.serial).toEqual([1, 2, 3]);
    expect(merged.tickets.state).toEqual(['', '', 'admitted']);
    const whole = kit([{ serial: 9, ticketId: 'tk-9' }]);
    expect(mergeKit(merged, whole)).toBe(whole);
  });
});
