/**
 * Online verification of rotating admission codes: POST /v1/tickets/admission/verify, each of
 * BENCH_ADM_TICKETS (5,000) distinct live codes scanned once, autocannon with 32 connections,
 * against one service process on SQLite. Every scan admits its ticket (a write transaction:
 * the conditional update of the ticket and the credential's scan), so this is the door's real
 * path, not a read. The target of the issue: at least 5,000 verifications a second.
 *
 * Baseline in the same run: the spec's POST /v1/tickets/{ticketId}/eventAdmission on as many
 * other tickets (the same admission, without a code to check), and the cost the code adds is
 * the difference. The phones are certified from this process on the service's SQLite file
 * (AdmissionService.bind, as the ticket page will), the codes made with WebCrypto as a phone
 * makes them (@resale/shared/admission-crypto), all at the step after now, so they stay current
 * for the run: a code lives 45 to 60 s, so the run (certifying, then scanning) must fit in that,
 * which bounds BENCH_ADM_TICKETS at the rates measured (the run fails loudly if a code expired).
 *
 * Then, before any scan online, the show's scanner kit (its JSON and gzipped bytes) and the
 * offline verifier's rate over the same codes (WebCrypto in this process: two signatures each).
 *
 * Ends with one line `admission-verify: tickets=… verify_per_s=… verify_p99_ms=…
 * admit_per_s=… admit_p99_ms=… admitted=…`.
 */
import autocannon from 'autocannon';
import pino from 'pino';
import { join } from 'node:path';
import { stepAt } from '@resale/shared/admission-code';
import { generateDeviceKeys, importTagKey, makeCode } from '@resale/shared/admission-crypto';
import { gzipSync } from 'node:zlib';
import { createKitVerifier, type ScannerKit } from '@resale/shared/admission-kit';
import { buildDeps, createDb, systemClock } from '@resale/server/bench';
import { api, benchServiceEnv, fmt, KEYS, startServer } from './lib.js';

const TICKETS = Number(process.env.BENCH_ADM_TICKETS ?? 5_000);
const CONNECTIONS = 32;

export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', {
      externalReferenceId: 'gate',
      title: 'Gate',
      description: 'benchmark',
      location: { city: 'Madrid', timeZone: 'Europe/Madrid' },
      configuration: {},
      shows: [{ showId: 'g1', title: 'Night', date: '2027-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] }],
    });
    const ticket = (id: string) => ({ externalReferenceEventId: 'gate', showId: 'g1', buyer: `fan-${id}@example.com`, ticketId: id, ticketAccess: { type: 'OTHER', locator: id }, ticketOptionId: 'opt', price: 40 });
    const coded = Array.from({ length: TICKETS }, (_, i) => `c-${i}`);
    const plain = Array.from({ length: TICKETS }, (_, i) => `p-${i}`);
    const all = [...coded, ...plain].map(ticket);
    for (let i = 0; i < all.length; i += 500) await api(server.base, 'POST', '/v1/sync/tickets', all.slice(i, i + 500));

    // A phone per coded ticket, certified on the service's own file, and its code of the next step.
    const db = createDb(join(server.dir, 'bench.sqlite'));
    const deps = buildDeps({ db, clock: systemClock, logger: pino({ level: 'silent' }), secretKey: benchServiceEnv(0).SECRET_KEY!, config: { env: 'production', publicBaseUrl: server.base, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'x' } });
    const partner = (await deps.partners.authenticate(KEYS.private))!.partner;
    // The show's venue scans rotating codes (ticketShield on): what the operator switches.
    await db.transact(async (tx) => {
      const show = (await deps.events.findShow(tx, partner.id, 'gate', 'g1')).show;
      await deps.events.setTicketShield(tx, show.id, true);
      await deps.events.setAdmissionCodes(tx, show.id, { venueScans: 'rotating', rotationSeconds: null });
    });
    const started = performance.now();
    const step = stepAt(Date.now(), 15) + 1;
    const texts: string[] = [];
    for (const id of coded) {
      const t = await deps.tickets.get(db, partner.id, id);
      const phone = await generateDeviceKeys();
      const binding = await db.transact(async (tx) => await deps.admission.bind(tx, partner.id, t.id, phone.publicKey));
      texts.push(await makeCode({ device: phone.privateKey, tag: await importTagKey(new Uint8Array(binding.tagKey)) }, binding.certificate, step));
    }
    db.$client.close();
    const prepS = (performance.now() - started) / 1000;

    // The scanner kit of the show and the offline verifier over the same codes (in this process, WebCrypto).
    const kit = (await api(server.base, 'GET', '/v1/shows/g1/scanner-kit?externalReferenceEventId=gate')) as ScannerKit;
    const kitJson = Buffer.from(JSON.stringify(kit));
    const kitGzip = gzipSync(kitJson).length;
    const verifier = await createKitVerifier(kit);
    const offlineStarted = performance.now();
    let offlineAdmitted = 0;
    for (const text of texts) if ((await verifier.verify(text, Date.now())).reason === 'admitted') offlineAdmitted++;
    const offlinePerS = TICKETS / ((performance.now() - offlineStarted) / 1000);

    const headers = { authorization: `Bearer ${KEYS.private}`, 'content-type': 'application/json' };
    let next = 0;
    let admittedByCode = 0;
    const verify = await autocannon({
      url: `${server.base}/v1/tickets/admission/verify`,
      connections: CONNECTIONS,
      amount: TICKETS,
      headers,
      method: 'POST',
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ text: texts[next++ % TICKETS] }) }), onResponse: (status, body) => void (status === 200 && body.includes('"reason":"admitted"') && admittedByCode++) }],
    });
    let nextPlain = 0;
    const admit = await autocannon({
      url: server.base,
      connections: CONNECTIONS,
      amount: TICKETS,
      headers,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/tickets/${plain[nextPlain++ % TICKETS]}/eventAdmission` }) }],
    });
    const rate = (r: autocannon.Result) => r.requests.total / (r.duration || 1);
    const result = {
      tickets: TICKETS,
      verifyPerS: rate(verify),
      verifyP99Ms: verify.latency.p99,
      admitPerS: rate(admit),
      admitP99Ms: admit.latency.p99,
      admitted: admittedByCode,
      non2xx: verify.non2xx + admit.non2xx,
      offlinePerS,
      kitBytes: kitJson.length,
      kitGzipBytes: kitGzip,
    };
    console.log(`admission-verify: ${fmt(TICKETS)} phones certified and their codes made in ${prepS.toFixed(1)} s; ${CONNECTIONS} connections, each code scanned once`);
    console.log(`  POST /v1/tickets/admission/verify: ${fmt(result.verifyPerS)}/s, p50 ${verify.latency.p50} ms, p99 ${verify.latency.p99} ms; ${fmt(admittedByCode)} admitted`);
    console.log(`  baseline, POST /v1/tickets/{id}/eventAdmission: ${fmt(result.admitPerS)}/s, p50 ${admit.latency.p50} ms, p99 ${admit.latency.p99} ms`);
    console.log(`  offline, the reference verifier (@resale/shared/admission-kit, WebCrypto, two signatures a code): ${fmt(offlinePerS)}/s, ${fmt(offlineAdmitted)} admitted; the kit: ${fmt(kitJson.length)} bytes, ${fmt(kitGzip)} gzipped (${(kitGzip / TICKETS).toFixed(1)} bytes a ticket)`);
    console.log(`admission-verify: offline_per_s=${offlinePerS.toFixed(0)} kit_bytes=${kitJson.length} kit_gzip_bytes=${kitGzip}`);
    console.log(`admission-verify: tickets=${TICKETS} verify_per_s=${result.verifyPerS.toFixed(0)} verify_p99_ms=${verify.latency.p99} admit_per_s=${result.admitPerS.toFixed(0)} admit_p99_ms=${admit.latency.p99} admitted=${admittedByCode}`);
    if (offlineAdmitted !== TICKETS) throw new Error(`the offline verifier admitted ${offlineAdmitted} of ${TICKETS}`);
    if (admittedByCode !== TICKETS || result.non2xx > 0) throw new Error(`expected every code admitted once (${admittedByCode} of ${TICKETS}, ${result.non2xx} non-2xx)`);
    return result;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
