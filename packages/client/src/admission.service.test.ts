import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKitVerifier, mergeKit, type ScannerKit } from '@resale/client/admission';
import { base32Decode, base32Encode, stepAt } from '../dist/admission/admission-code.js';
import { servicePhones, type ServicePhones } from '../testing/admission.js';
import { createTestPartner, startTestService, type TestService } from '../testing/service.js';
import { createResaleClient, unwrap, type ResaleClient, type Schemas } from './index.js';

/**
 * `@resale/client/admission` against the real service (started in this process): the show's
 * kit fetched with the client (`getScannerKit`), phones certified by the service for its
 * tickets (its issuer, serials and epochs), and the tickets' states set through the API
 * (admitted online, deleted, a cancelled event). What a venue's door does, offline, with what
 * the service really answers.
 */

const DAY = 86_400_000;
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

let service: TestService;
let phones: ServicePhones;
let resale: ResaleClient;
let partnerId: string;
let privateKey: string;

/** The show's whole kit, as a door fetches it, and the door's clock corrected by its `serverTime`. */
async function fetchKit(showId: string, externalReferenceEventId = 'tour', since?: string): Promise<{ kit: ScannerKit; now: () => number }> {
  const query = since === undefined ? { externalReferenceEventId } : { externalReferenceEventId, since };
  const kit: ScannerKit = unwrap(await resale.getScannerKit({ params: { path: { showId }, query } })).data;
  const offset = Date.parse(kit.serverTime) - Date.now();
  return { kit, now: () => Date.now() + offset };
}

function event(id: string, showIds: string[]): Schemas['EventCreate'] {
  return {
    externalReferenceId: id,
    title: `Admission ${id}`,
    description: 'Rotating codes checked offline',
    location: { city: 'Madrid', venueName: 'Arena Norte', country: 'ES', timeZone: 'Europe/Madrid' },
    configuration: {},
    shows: showIds.map((showId) => ({
      showId,
      title: showId,
      date: new Date(Date.now() + 2 * DAY).toISOString(),
      ticketOptions: [{ ticketId: 'general', title: 'General admission', description: 'Standing', currency: 'EUR', price: 40 }],
      images: [],
      configuration: {},
    })),
  };
}

function ticket(eventId: string, showId: string, ticketId: string, seat: Partial<Schemas['TicketInput']> = {}): Schemas['TicketInput'] {
  return { externalReferenceEventId: eventId, showId, ticketId, ticketOptionId: 'general', buyer: `${ticketId}@example.com`, ticketAccess: { type: 'OTHER', locator: `QR-${ticketId}` }, price: 40, ...seat };
}

beforeAll(async () => {
  service = await startTestService();
  const partner = await createTestPartner(service);
  partnerId = partner.partner.id;
  privateKey = partner.keys.private;
  resale = createResaleClient({ baseUrl: service.baseUrl, key: partner.keys.private });
  const operator = createResaleClient({ baseUrl: service.baseUrl, key: service.operatorToken });
  unwrap(await resale.createEvent({ body: event('tour', ['night-1', 'night-2']) }));
  unwrap(await resale.createEvent({ body: event('gone', ['only']) }));
  // The venue scans rotating codes (ticketShield on): the operator's switch.
  for (const eventId of ['tour', 'gone']) unwrap(await operator.setTicketShield({ params: { path: { partnerId } }, body: { eventId, status: true, admissionCodes: { venueScans: 'rotating' } } }));
  const tickets = [
    ticket('tour', 'night-1', 'tk-1', { section: 'B', row: '4', seat: '11' }),
    ...['tk-2', 'tk-3', 'tk-4', 'tk-5', 'tk-6', 'tk-7', 'tk-8'].map((id) => ticket('tour', 'night-1', id)),
    ticket('tour', 'night-2', 'tk-9'),
    ticket('gone', 'only', 'tk-c'),
  ];
  const synced = unwrap(await resale.createTicketsSync({ body: tickets })).data;
  expect(synced.rejected).toBe(0);
  phones = await servicePhones(service);
}, 60_000); // starting a whole service, under a loaded CI machine: well over the default 10 s

afterAll(async () => {
  await phones?.close();
  await service?.stop();
});

describe('@resale/client/admission with the service’s own kits and certificates', () => {
  it('admits a current code once; a retry is a repeat, a second entry at the same door already_admitted', async () => {
    const phone = await phones.certify(partnerId, 'tk-1');
    const { kit, now } = await fetchKit('night-1');
    expect(kit).toMatchObject({ v: 1, externalReferenceEventId: 'tour', showId: 'night-1', keys: [{ tag: expect.any(Number), publicKey: expect.any(String) }] });
    const door = await createKitVerifier(kit);
    const at = now();
    const text = await phone(at);
    expect(await door.verify(text, at)).toEqual({ valid: true, reason: 'admitted', repeat: false, ticket: { serial: phone.serial, ticketId: 'tk-1', section: 'B', row: '4', seat: '11' } });
    expect(await door.verify(`${text.toLowerCase()}\r\n`, at + 2_000)).toMatchObject({ valid: true, reason: 'admitted', repeat: true });
    // The phone's next code (or a friend's copy of it): this door already let the ticket in.
    const later = at + 15_000;
    expect(await door.verify(await phone(later), later)).toMatchObject({ valid: false, reason: 'already_admitted', repeat: false, ticket: { ticketId: 'tk-1' } });
    expect([...door.admitted]).toEqual([[phone.serial, text]]);
  });

  it('refuses an expired code, one not yet valid, a forgery, junk and another show’s code', async () => {
    const phone = await phones.certify(partnerId, 'tk-2');
    const otherShow = await phones.certify(partnerId, 'tk-9');
    const { kit, now } = await fetchKit('night-1');
    const door = await createKitVerifier(kit);
    const at = now();
    const step = stepAt(at, 15);
    expect(await door.verify(await phone(at, step - 3), at)).toMatchObject({ valid: false, reason: 'expired', ticket: { ticketId: 'tk-2' } });
    expect(await door.verify(await phone(at, step + 2), at)).toMatchObject({ valid: false, reason: 'not_yet_valid', ticket: { ticketId: 'tk-2' } });
    // Two steps behind and one ahead are still current (a slow scan, a clock a little off): checked by a door of its own each.
    expect((await (await createKitVerifier(kit)).verify(await phone(at, step - 2), at)).reason).toBe('admitted');
    expect((await (await createKitVerifier(kit)).verify(await phone(at, step + 1), at)).reason).toBe('admitted');
    const bytes = base32Decode(await phone(at))!;
    bytes[130] = bytes[130]! ^ 0x10; // in the phone's signature
    expect(await door.verify(base32Encode(bytes), at)).toEqual({ valid: false, reason: 'forged', repeat: false, ticket: null });
    expect(await door.verify('QR-tk-2', at)).toEqual({ valid: false, reason: 'malformed', repeat: false, ticket: null });
    // night-2's code (its own issuer key): unknown at night-1's door, admitted at its own.
    expect(await door.verify(await otherShow(at), at)).toEqual({ valid: false, reason: 'unknown', repeat: false, ticket: null });
    const own = await fetchKit('night-2');
    expect((await (await createKitVerifier(own.kit)).verify(await otherShow(at), at)).reason).toBe('admitted');
    expect(door.admitted.size).toBe(0);
  });

  it('refuses what the kit says: an old phone (revoked), and tickets admitted online, deleted or of a cancelled show', async () => {
    const oldPhone = await phones.certify(partnerId, 'tk-3');
    const newPhone = await phones.certify(partnerId, 'tk-3'); // the holder moved the code: a new epoch
    expect(newPhone.epoch).toBe(oldPhone.epoch + 1);
    const used = await phones.certify(partnerId, 'tk-4');
    const removed = await phones.certify(partnerId, 'tk-5');
    const cancelled = await phones.certify(partnerId, 'tk-c');
    unwrap(await resale.admitTicket({ params: { path: { ticketId: 'tk-4' } } }));
    expect((await resale.deleteTicket({ params: { path: { ticketId: 'tk-5' } } })).response.ok).toBe(true);
    unwrap(await resale.cancelEvent({ params: { path: { externalReferenceId: 'gone' } } }));

    const { kit, now } = await fetchKit('night-1');
    const column = (serial: number) => {
      const i = kit.tickets.serial.indexOf(serial);
      return { minEpoch: kit.tickets.minEpoch[i], state: kit.tickets.state[i] };
    };
    expect(column(newPhone.serial)).toEqual({ minEpoch: newPhone.epoch, state: '' });
    expect(column(used.serial)).toEqual({ minEpoch: used.epoch, state: 'admitted' });
    expect(column(removed.serial)).toEqual({ minEpoch: removed.epoch, state: 'deleted' });
    const door = await createKitVerifier(kit);
    const at = now();
    expect(await door.verify(await oldPhone(at), at)).toMatchObject({ valid: false, reason: 'revoked', ticket: { ticketId: 'tk-3' } });
    expect(await door.verify(await used(at), at)).toMatchObject({ valid: false, reason: 'already_admitted', ticket: { ticketId: 'tk-4' } });
    expect(await door.verify(await removed(at), at)).toMatchObject({ valid: false, reason: 'deleted', ticket: { ticketId: 'tk-5' } });
    expect(await door.verify(await newPhone(at), at)).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'tk-3' } });

    const gone = await fetchKit('only', 'gone');
    expect(gone.kit.tickets.state).toEqual(['cancelled']);
    expect(await (await createKitVerifier(gone.kit)).verify(await cancelled(at), at)).toMatchObject({ valid: false, reason: 'cancelled', ticket: { ticketId: 'tk-c' } });
  });

  it('refreshes as the README says: the next kit merged in, the door’s admissions kept, then synced', async () => {
    const mine = await phones.certify(partnerId, 'tk-6');
    const elsewhere = await phones.certify(partnerId, 'tk-7');
    let { kit, now } = await fetchKit('night-1');
    let door = await createKitVerifier(kit);
    const at = now();
    const text = await mine(at);
    expect((await door.verify(text, at)).reason).toBe('admitted');
    // Meanwhile another gate admits tk-7 online.
    unwrap(await resale.admitTicket({ params: { path: { ticketId: 'tk-7' } } }));

    // 30 s later: the changes since the door's kit (or a whole kit), merged into it; a verifier of it, seeded with this door's admissions.
    const next = await fetchKit('night-1', 'tour', kit.serverTime);
    ({ kit, now } = { kit: mergeKit(kit, next.kit), now: next.now });
    expect(kit.since).toBeUndefined();
    door = await createKitVerifier(kit, { admitted: door.admitted });
    const then = now();
    expect(await door.verify(await elsewhere(then), then)).toMatchObject({ valid: false, reason: 'already_admitted', ticket: { ticketId: 'tk-7' } });
    expect(await door.verify(await mine(then + 15_000), then + 15_000)).toMatchObject({ valid: false, reason: 'already_admitted', ticket: { ticketId: 'tk-6' } });

    // Online again: what the door admitted goes to the service, which admits the ticket as of the scan.
    const scans = [...door.admitted.values()].map((t) => ({ text: t, scannedAt: new Date(at).toISOString() }));
    const { results } = unwrap(await resale.syncAdmissions({ params: { path: { showId: 'night-1' }, query: { externalReferenceEventId: 'tour' } }, body: { scans } })).data;
    expect(results.map((r) => [r.reason, r.ticket?.ticketId])).toEqual([['admitted', 'tk-6']]);
    const after = await fetchKit('night-1');
    expect(after.kit.tickets.state[after.kit.tickets.serial.indexOf(mine.serial)]).toBe('admitted');
  });

  it('examples/door.ts, as the README shows it: scans from its input checked offline, then synced', async () => {
    const phone = await phones.certify(partnerId, 'tk-8');
    const text = await phone(Date.now());
    const child = spawn(process.execPath, ['--import', 'tsx', `${PACKAGE}examples/door.ts`], {
      cwd: PACKAGE,
      env: { ...process.env, RESALE_BASE_URL: service.baseUrl, RESALE_KEY: privateKey, RESALE_EVENT_ID: 'tour', RESALE_SHOW_ID: 'night-1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.stdin.end([text, `  ${text.toLowerCase()}`, 'QR-tk-8', ''].join('\n'));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['IN  tk-8', 'IN  tk-8 (the same scan again)', 'NO  malformed']);
    // Its admission reached the service at the end of its input: the next kit says so.
    const { kit } = await fetchKit('night-1');
    expect(kit.tickets.state[kit.tickets.serial.indexOf(phone.serial)]).toBe('admitted');
  });
});
