// A door: check rotating codes offline with the show's scanner kit, and sync what it admitted.
//
//   RESALE_BASE_URL   where the service runs, e.g. https://resale.example
//   RESALE_KEY        your private key (sk_…)
//   RESALE_EVENT_ID   your event id, RESALE_SHOW_ID your show id
//
// Reads scanned texts from standard input, one per line (a scanner in keyboard mode types them).
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

async function refresh(): Promise<void> {
  const query = kit ? { externalReferenceEventId: eventId, since: kit.serverTime } : { externalReferenceEventId: eventId };
  const next = unwrap(await resale.getScannerKit({ params: { path: { showId }, query } })).data as ScannerKit;
  kit = kit ? mergeKit(kit, next) : next;
  offset = Date.parse(kit.serverTime) - Date.now();
  // A new verifier starts with no memory of this door's admissions: it is made only once they are
  // all synced (see below), so the kit itself marks them admitted.
  door = await createKitVerifier(kit);
}

// 2. Back online, the door's admissions go to the service: each ticket admitted once, earliest scan first.
async function sync(): Promise<void> {
  if (pending.length === 0) return;
  const scans = pending.splice(0, 500);
  try {
    const answer = unwrap(await resale.syncAdmissions({ params: { path: { showId }, query: { externalReferenceEventId: eventId } }, body: { scans } })).data;
    answer.results.forEach((r, i) => {
      if (r.reason === 'already_admitted') console.warn(`second entry with ${r.ticket?.ticketId ?? 'a ticket'} at ${scans[i]!.scannedAt}`);
    });
  } catch {
    pending.unshift(...scans); // offline again: kept for the next try
  }
}

await refresh();
setInterval(() => {
  void sync()
    .then(() => (pending.length === 0 ? refresh() : undefined))
    .catch(() => undefined); // offline: the door goes on with the kit it holds
}, 30_000);

// 3. Each scan: checked against the kit, with no call to the service.
for await (const line of createInterface({ input: process.stdin })) {
  const now = Date.now() + offset;
  const verdict = await door!.verify(line, now);
  if (verdict.valid && !verdict.repeat) pending.push({ text: line.trim(), scannedAt: new Date(now).toISOString() });
  const seat = verdict.ticket ? [verdict.ticket.section, verdict.ticket.row, verdict.ticket.seat].filter(Boolean).join(' ') : '';
  console.log(verdict.valid ? `IN  ${verdict.ticket?.ticketId} ${seat}` : `NO  ${verdict.reason}`);
}
