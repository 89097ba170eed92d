// A door: check rotating codes offline with the show's scanner kit, and sync what it admitted.
//
//   RESALE_BASE_URL   where the service runs, e.g. https://resale.example
//   RESALE_KEY        your private key (sk_…)
//   RESALE_EVENT_ID   your event id, RESALE_SHOW_ID your show id
//
// Reads scanned texts from standard input, one per line (a scanner in keyboard mode types them);
// at the end of the input it syncs what it admitted and stops.
// Run it with: npx tsx examples/door.ts
import { createInterface } from 'node:readline';
import { createResaleClient, unwrap } from '@resale/client';
import { createKitVerifier, mergeKit, type KitVerifier, type ScannerKit } from '@resale/client/admission';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see the top of this file)`);
  return value;
}

const resale = createResaleClient({ baseUrl: env('RESALE_BASE_URL'), key: env('RESALE_KEY') });
const eventId = env('RESALE_EVENT_ID');
const showId = env('RESALE_SHOW_ID');

// 1. The kit, then every 30 s only what changed (`since`: the last kit's serverTime), merged in.
let kit: ScannerKit | null = null;
let door: KitVerifier | null = null;
/** The door's clock corrected by the service's (the kit's serverTime). */
let offset = 0;
const pending: { text: string; scannedAt: string }[] = [];

/** Scans and kit changes, one at a time: a scan admitted while the kit changes is not forgotten. */
let turn: Promise<unknown> = Promise.resolve();
function inTurn<T>(fn: () => Promise<T>): Promise<T> {
  const run = turn.then(fn);
  turn = run.catch(() => undefined);
  return run;
}

async function refresh(): Promise<void> {
  const query = kit ? { externalReferenceEventId: eventId, since: kit.serverTime } : { externalReferenceEventId: eventId };
  const next = unwrap(await resale.getScannerKit({ params: { path: { showId }, query } })).data;
  await inTurn(async () => {
    kit = kit ? mergeKit(kit, next) : next;
    offset = Date.parse(kit.serverTime) - Date.now();
    // A verifier of the fresher kit that remembers what this door admitted, synced yet or not.
    door = await createKitVerifier(kit, { admitted: door?.admitted ?? [] });
  });
}

// 2. Online, the door's admissions go to the service: each ticket admitted once, earliest scan first.
async function sync(): Promise<void> {
  while (pending.length > 0) {
    const scans = pending.splice(0, 500);
    try {
      const answer = unwrap(await resale.syncAdmissions({ params: { path: { showId }, query: { externalReferenceEventId: eventId } }, body: { scans } })).data;
      answer.results.forEach((r, i) => {
        if (r.reason === 'already_admitted') console.warn(`second entry with ${r.ticket?.ticketId ?? 'a ticket'} at ${scans[i]!.scannedAt}`);
      });
    } catch {
      pending.unshift(...scans); // offline: kept for the next try
      return;
    }
  }
}

await refresh();
const timer = setInterval(() => {
  // Offline, either fails: the door goes on with the kit it holds and keeps its scans.
  void sync().catch(() => undefined);
  void refresh().catch(() => undefined);
}, 30_000);

// 3. Each scan: checked against the kit, with no call to the service.
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const { verdict, now } = await inTurn(async () => {
    const now = Date.now() + offset;
    return { verdict: await door!.verify(line, now), now };
  });
  if (verdict.valid && !verdict.repeat) pending.push({ text: line.trim(), scannedAt: new Date(now).toISOString() });
  const ticket = verdict.ticket ? [verdict.ticket.ticketId, verdict.ticket.section, verdict.ticket.row, verdict.ticket.seat].filter(Boolean) : [];
  console.log([verdict.valid ? 'IN ' : `NO  ${verdict.reason}`, ...ticket, verdict.repeat ? '(the same scan again)' : ''].filter(Boolean).join(' '));
}

// 4. The end of the input: what is left goes to the service.
clearInterval(timer);
await sync();
if (pending.length > 0) console.warn(`${pending.length} admissions not synced: the service could not be reached`);
