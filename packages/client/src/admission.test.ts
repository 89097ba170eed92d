import { describe, expect, expectTypeOf, it } from 'vitest';
// The published module, as a venue's integrator imports it: by the package's name, through its
// `exports` (the built dist/admission/, which `npm run build` compiles from @resale/shared).
import { createKitVerifier, mergeKit, OFFLINE_REASONS, type OfflineReason, type OfflineResult, type ScannerKit } from '@resale/client/admission';
import type { Schemas } from './index.js';
import { base32Decode, base32Encode } from '../dist/admission/admission-code.js';
import { handMadeShow } from '../testing/admission.js';

/**
 * The offline verifier `@resale/client/admission` ships, from its built files: a show's issuer
 * and phones made here the way the service and the fan's page make them (Ed25519 and HMAC
 * through WebCrypto), kits shaped as `GET /v1/shows/{showId}/scanner-kit` answers, and every
 * verdict a door can reach without the service. The service's own kits and certificates:
 * admission.service.test.ts.
 */

const NOW = Date.parse('2027-06-01T19:40:00Z');
const STEP_MS = 15_000;

describe('@resale/client/admission: checking rotating codes offline', () => {
  it('admits a current code once, a retry of the same scan as a repeat, and refuses a second entry at the same door', async () => {
    const { phone, kit } = await handMadeShow(NOW);
    const code = await phone(1);
    const door = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    const text = await code(NOW);
    expect(await door.verify(text, NOW)).toEqual({ valid: true, reason: 'admitted', repeat: false, ticket: { serial: 1, ticketId: 'tk-1', section: 'B', row: '4', seat: '1' } });
    // What scanners add (white space, lower case) is tolerated: the same scan, a door's retry.
    expect(await door.verify(` ${text.toLowerCase()}\n`, NOW + 1_000)).toEqual({ valid: true, reason: 'admitted', repeat: true, ticket: expect.objectContaining({ ticketId: 'tk-1' }) });
    // The next step's code of the same ticket: someone else with a copy, or a second entry.
    expect(await door.verify(await code(NOW + STEP_MS), NOW + STEP_MS)).toEqual({ valid: false, reason: 'already_admitted', repeat: false, ticket: expect.objectContaining({ ticketId: 'tk-1' }) });
    expect([...door.admitted.entries()]).toEqual([[1, text]]);
    // The memory is the verifier's own: another door with the same kit admits the ticket once too.
    const otherDoor = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    expect(await otherDoor.verify(await code(NOW + STEP_MS), NOW + STEP_MS)).toMatchObject({ valid: true, reason: 'admitted', repeat: false });
  });

  it('refuses a screenshot (over two steps old), a code from the future, a forgery, junk, another show’s code and an old kit', async () => {
    const { phone, kit } = await handMadeShow(NOW);
    const code = await phone(1);
    const door = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    // Valid from two steps behind the door's clock to one ahead, and not a step more.
    expect(await door.verify(await code(NOW - 3 * STEP_MS), NOW)).toMatchObject({ valid: false, reason: 'expired', ticket: { ticketId: 'tk-1' } });
    expect(await door.verify(await code(NOW + 2 * STEP_MS), NOW)).toMatchObject({ valid: false, reason: 'not_yet_valid', ticket: { ticketId: 'tk-1' } });
    // One flipped bit in the phone's signature, then in the issuer's.
    for (const at of [150, 60]) {
      const bytes = base32Decode(await code(NOW))!;
      bytes[at] = bytes[at]! ^ 1;
      expect(await door.verify(base32Encode(bytes), NOW), `byte ${at}`).toEqual({ valid: false, reason: 'forged', repeat: false, ticket: null });
    }
    expect(await door.verify('TKT-1042', NOW)).toEqual({ valid: false, reason: 'malformed', repeat: false, ticket: null });
    expect(await door.verify((await code(NOW)).slice(0, -1), NOW)).toMatchObject({ valid: false, reason: 'malformed' });
    // A code of another show (its own issuer and tag): none of this kit's tickets.
    const other = await handMadeShow(NOW, 8);
    expect(await door.verify(await (await other.phone(1))(NOW), NOW)).toEqual({ valid: false, reason: 'unknown', repeat: false, ticket: null });
    // Another issuer signing under this show's tag: its certificate does not verify.
    const impostor = await handMadeShow(NOW, 7);
    expect(await door.verify(await (await impostor.phone(1))(NOW), NOW)).toMatchObject({ valid: false, reason: 'forged', ticket: null });
    // Past the kit's validUntil (twelve hours here) nothing is admitted offline.
    expect(await door.verify(await code(NOW + 13 * 3_600_000), NOW + 13 * 3_600_000)).toMatchObject({ valid: false, reason: 'kit_expired' });
    // And none of that admitted anything: the valid code still enters.
    expect(door.admitted.size).toBe(0);
    expect(await door.verify(await code(NOW), NOW)).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('refuses an old epoch (revoked) and the tickets the kit marks listed, admitted, deleted or cancelled', async () => {
    const { phone, kit } = await handMadeShow(NOW);
    const seller = await phone(1, 1);
    const buyer = await phone(1, 2);
    const door = await createKitVerifier(
      kit([
        { serial: 1, ticketId: 'tk-1', minEpoch: 2 },
        { serial: 2, ticketId: 'tk-2', state: 'listed' },
        { serial: 3, ticketId: 'tk-3', state: 'admitted' },
        { serial: 4, ticketId: 'tk-4', state: 'deleted' },
        { serial: 5, ticketId: 'tk-5', state: 'cancelled' },
        { serial: 6, ticketId: 'tk-6', state: 'revoked' },
      ]),
    );
    expect(await door.verify(await seller(NOW), NOW)).toMatchObject({ valid: false, reason: 'revoked', ticket: { ticketId: 'tk-1' } });
    const refusals = [];
    for (const serial of [2, 3, 4, 5, 6]) refusals.push(await door.verify(await (await phone(serial))(NOW), NOW));
    expect(refusals.map((r) => [r.valid, r.reason, r.ticket?.ticketId])).toEqual([
      [false, 'listed', 'tk-2'],
      [false, 'already_admitted', 'tk-3'],
      [false, 'deleted', 'tk-4'],
      [false, 'cancelled', 'tk-5'],
      [false, 'revoked', 'tk-6'],
    ]);
    // The buyer's phone (the epoch the kit names) enters.
    expect(await door.verify(await buyer(NOW), NOW)).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'tk-1' } });
    expect([...door.admitted.keys()]).toEqual([1]);
  });

  it('keeps what a door admitted across a fresher kit when seeded with it; refuses a delta or a kit of another version', async () => {
    const { phone, kit } = await handMadeShow(NOW);
    const code = await phone(1);
    const first = await createKitVerifier(kit([{ serial: 1, ticketId: 'tk-1' }]));
    const text = await code(NOW);
    expect((await first.verify(text, NOW)).reason).toBe('admitted');
    const fresher = kit([{ serial: 1, ticketId: 'tk-1' }], { serverTime: new Date(NOW + 30_000).toISOString() });
    const seeded = await createKitVerifier(fresher, { admitted: first.admitted });
    expect(await seeded.verify(await code(NOW + 30_000), NOW + 30_000)).toMatchObject({ valid: false, reason: 'already_admitted' });
    expect(await seeded.verify(text, NOW + 1_000)).toMatchObject({ valid: true, repeat: true });
    // Not seeded, a verifier knows only its kit (which does not list tk-1 admitted yet).
    expect((await (await createKitVerifier(fresher)).verify(await code(NOW + 30_000), NOW + 30_000)).reason).toBe('admitted');
    // A delta lists only what changed: it is merged into the door's kit, never checked alone.
    await expect(createKitVerifier(kit([], { since: new Date(NOW).toISOString() }))).rejects.toThrow(/mergeKit/);
    await expect(createKitVerifier({ ...kit([]), v: 2 } as unknown as ScannerKit)).rejects.toThrow(/version 2/);
  });

  it('merges a delta (`?since=`) into the door’s kit by serial; a whole kit replaces it', async () => {
    const { kit } = await handMadeShow(NOW);
    const base = kit([
      { serial: 1, ticketId: 'tk-1' },
      { serial: 3, ticketId: 'tk-3' },
    ]);
    const delta = kit(
      [
        { serial: 2, ticketId: 'tk-2' },
        { serial: 3, ticketId: 'tk-3', state: 'admitted' },
      ],
      { since: base.serverTime, serverTime: new Date(NOW + 30_000).toISOString() },
    );
    const merged = mergeKit(base, delta);
    expect(merged.since).toBeUndefined();
    expect(merged.serverTime).toBe(new Date(NOW + 30_000).toISOString());
    expect(merged.tickets.serial).toEqual([1, 2, 3]);
    expect(merged.tickets.state).toEqual(['', '', 'admitted']);
    const whole = kit([{ serial: 9, ticketId: 'tk-9' }]);
    expect(mergeKit(merged, whole)).toBe(whole);
    expect(() => mergeKit(base, { ...delta, showId: 'night-2' })).toThrow(/another show/);
  });

  it('lists every reason a door can be told, and types the kit as the API answers it', () => {
    expect([...OFFLINE_REASONS].sort()).toEqual(['admitted', 'already_admitted', 'cancelled', 'deleted', 'expired', 'forged', 'kit_expired', 'listed', 'malformed', 'not_yet_valid', 'revoked', 'unknown']);
    expectTypeOf<OfflineResult['reason']>().toEqualTypeOf<OfflineReason>();
    expectTypeOf<(typeof OFFLINE_REASONS)[number]>().toEqualTypeOf<OfflineReason>();
    // What getScannerKit answers is a ScannerKit as it is: no cast between the client and the verifier.
    expectTypeOf<Schemas['ScannerKit']>().toExtend<ScannerKit>();
  });
});
