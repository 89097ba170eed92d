/**
 * Online verification of rotating admission codes: POST /v1/tickets/admission/verify, each of
 * BENCH_ADM_TICKETS (5,000) distinct live codes scanned once, after BENCH_ADM_WARM_UP (1,000) untimed, autocannon with 32 connections,
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
 * And first of all, a stadium: a second show of BENCH_ADM_KIT_TICKETS (60,000) tickets, each
 * with a phone certified, whose kit a door fetches: its bytes, gzipped bytes and time to serve.
 *
 * Ends with one line `admission-verify: tickets=… verify_per_s=… verify_p99_ms=…
 * admit_per_s=… admit_p99_ms=… verify_cpu_us=… admit_cpu_us=… admitted=…`: each rate timed to
 * the run's last answer, and the service's CPU time (all its threads) per request.
 */
import autocannon from 'autocannon';
import { Agent, fetch as freshFetch } from 'undici';
import pino from 'pino';
import { join } from 'node:path';
import { stepAt } from '@resale/shared/admission-code';
import { generateDeviceKeys, importTagKey, makeCode } from '@resale/shared/admission-crypto';
import { gzipSync } from 'node:zlib';
import { createKitVerifier, type ScannerKit } from '@resale/shared/admission-kit';
import { buildDeps, createDb, systemClock } from '@resale/server/bench';
import { api, benchServiceEnv, cpuSeconds, fmt, KEYS, startServer } from './lib.js';

const TICKETS = Number(process.env.BENCH_ADM_TICKETS ?? 5_000);
/** The show whose kit is weighed: a stadium's worth of tickets, each with a phone certified. */
const KIT_TICKETS = Number(process.env.BENCH_ADM_KIT_TICKETS ?? 60_000);
const CONNECTIONS = 32;
/**
 * Scans (and, for the baseline, admissions) sent first and not timed, on tickets of their own:
 * a process's first thousand requests of a route run code the JIT has not compiled yet, which
 * in a run of 5,000 was a tenth of the time (a door scans for hours).
 */
const WARM_UP = Number(process.env.BENCH_ADM_WARM_UP ?? 1_000);

export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', {
      externalReferenceId: 'gate',
      title: 'Gate',
      description: 'benchmark',
      location: { city: 'Madrid', timeZone: 'Europe/Madrid' },
      configuration: {},
      shows: [
        { showId: 'g1', title: 'Night', date: '2027-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] },
        { showId: 'big', title: 'Stadium', date: '2027-05-02T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] },
      ],
    });
    const ticket = (id: string, showId = 'g1') => ({ externalReferenceEventId: 'gate', showId, buyer: `fan-${id}@example.com`, ticketId: id, ticketAccess: { type: 'OTHER', locator: id }, ticketOptionId: 'opt', price: 40 });
    const coded = Array.from({ length: WARM_UP + TICKETS }, (_, i) => `c-${i}`);
    const plain = Array.from({ length: WARM_UP + TICKETS }, (_, i) => `p-${i}`);
    const all = [...coded, ...plain].map((id) => ticket(id));
    for (let i = 0; i < all.length; i += 500) await api(server.base, 'POST', '/v1/sync/tickets', all.slice(i, i + 500));

    // A phone per coded ticket, certified on the service's own file, and its code of the next step.
    const db = createDb(join(server.dir, 'bench.sqlite'));
    const deps = buildDeps({ db, clock: systemClock, logger: pino({ level: 'silent' }), secretKey: benchServiceEnv(0).SECRET_KEY!, config: { env: 'production', publicBaseUrl: server.base, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'x' } });
    const partner = (await deps.partners.authenticate(KEYS.private))!.partner;
    // The shows' venue scans rotating codes (ticketShield on): what the operator switches.
    await db.transact(async (tx) => {
      for (const showId of ['g1', 'big']) {
        const show = (await deps.events.findShow(tx, partner.id, 'gate', showId)).show;
        await deps.events.setTicketShield(tx, show.id, true);
        await deps.events.setAdmissionCodes(tx, show.id, { venueScans: 'rotating', rotationSeconds: null });
      }
    });

    // The stadium: its tickets synced, a phone certified for each (a hundred to a transaction:
    // short enough for the service's own writers on the same file), then its kit fetched as a door does.
    const bigStarted = performance.now();
    const big = Array.from({ length: KIT_TICKETS }, (_, i) => `s-${i}`);
    // The asynchronous queue (POST /v1/tickets, 1,000 a batch): the synchronous endpoint allows 60 calls a minute.
    const jobs: string[] = [];
    for (let i = 0; i < big.length; i += 1000) jobs.push((await api(server.base, 'POST', '/v1/tickets', big.slice(i, i + 1000).map((id) => ticket(id, 'big')))).jobId);
    for (const id of jobs) while ((await api(server.base, 'GET', `/v1/tickets/jobs/${id}`)).state !== 'done') await new Promise((r) => setTimeout(r, 50));
    const bigPhone = await generateDeviceKeys();
    for (let i = 0; i < big.length; i += 100) {
      await db.transact(async (tx) => {
        for (const id of big.slice(i, i + 100)) await deps.admission.bind(tx, partner.id, (await deps.tickets.get(tx, partner.id, id)).id, bigPhone.publicKey);
      });
      // SQLite's lock is not fair between processes: a pause lets the service's own jobs write.
      await new Promise((r) => setTimeout(r, 5));
    }
    const bigPrepS = (performance.now() - bigStarted) / 1000;
    const kitStarted = performance.now();
    // On a connection of its own: the last one idled through the binding, and the service may have closed it (keep-alive).
    const bigKit = (await freshFetch(`${server.base}/v1/shows/big/scanner-kit?externalReferenceEventId=gate`, { headers: { authorization: KEYS.private }, dispatcher: new Agent() }).then(async (r) => ((await r.json()) as { data: ScannerKit }).data));
    const bigKitMs = performance.now() - kitStarted;
    const bigKitJson = Buffer.from(JSON.stringify(bigKit));
    const bigKitGzip = gzipSync(bigKitJson).length;
    if (bigKit.tickets.serial.length !== KIT_TICKETS) throw new Error(`the stadium's kit lists ${bigKit.tickets.serial.length} of ${KIT_TICKETS} tickets`);
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
    const timed = texts.slice(WARM_UP);
    for (const text of timed) if ((await verifier.verify(text, Date.now())).reason === 'admitted') offlineAdmitted++;
    const offlinePerS = TICKETS / ((performance.now() - offlineStarted) / 1000);

    const headers = { authorization: `Bearer ${KEYS.private}`, 'content-type': 'application/json' };
    // The warm-up, untimed: the first WARM_UP codes scanned and as many tickets admitted, each once.
    if (WARM_UP > 0) {
      const warm = texts.slice(0, WARM_UP);
      let w = 0;
      let p = 0;
      await autocannon({ url: `${server.base}/v1/tickets/admission/verify`, connections: CONNECTIONS, amount: WARM_UP, headers, method: 'POST', requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ text: warm[w++]! }) }) }] });
      await autocannon({ url: server.base, connections: CONNECTIONS, amount: WARM_UP, headers, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/tickets/${plain[p++]}/eventAdmission` }) }] });
    }
    let next = 0;
    let admittedByCode = 0;
    // The service's CPU time (all its threads) per request: steadier than the rate on a shared machine.
    const cpuBeforeVerify = cpuSeconds(server.pid);
    // Timed to the last answer: autocannon's own duration (and its end) keep to whole seconds of its ticker.
    const verifyStarted = performance.now();
    let verifyEnded = verifyStarted;
    const verify = await autocannon({
      url: `${server.base}/v1/tickets/admission/verify`,
      connections: CONNECTIONS,
      amount: TICKETS,
      headers,
      method: 'POST',
      requests: [
        {
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ text: timed[next++ % TICKETS] }) }),
          onResponse: (status, body) => {
            verifyEnded = performance.now();
            if (status === 200 && body.includes('"reason":"admitted"')) admittedByCode++;
          },
        },
      ],
    });
    const verifyS = (verifyEnded - verifyStarted) / 1000;
    const cpuAfterVerify = cpuSeconds(server.pid);
    let nextPlain = 0;
    const admitStarted = performance.now();
    let admitEnded = admitStarted;
    const admit = await autocannon({
      url: server.base,
      connections: CONNECTIONS,
      amount: TICKETS,
      headers,
      requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, path: `/v1/tickets/${plain[WARM_UP + (nextPlain++ % TICKETS)]}/eventAdmission` }), onResponse: () => void (admitEnded = performance.now()) }],
    });
    const admitS = (admitEnded - admitStarted) / 1000;
    const cpuAfterAdmit = cpuSeconds(server.pid);
    const rate = (r: autocannon.Result, seconds: number) => r.requests.total / seconds;
    const cpuUs = (from: number | null, to: number | null) => (from === null || to === null ? Number.NaN : ((to - from) * 1e6) / TICKETS);
    const result = {
      tickets: TICKETS,
      verifyPerS: rate(verify, verifyS),
      verifyP99Ms: verify.latency.p99,
      admitPerS: rate(admit, admitS),
      admitP99Ms: admit.latency.p99,
      verifyCpuUs: cpuUs(cpuBeforeVerify, cpuAfterVerify),
      admitCpuUs: cpuUs(cpuAfterVerify, cpuAfterAdmit),
      admitted: admittedByCode,
      non2xx: verify.non2xx + admit.non2xx,
      offlinePerS,
      kitBytes: kitJson.length,
      kitGzipBytes: kitGzip,
      bigKitTickets: KIT_TICKETS,
      bigKitBytes: bigKitJson.length,
      bigKitGzipBytes: bigKitGzip,
      bigKitMs,
    };
    console.log(`admission-verify: ${fmt(TICKETS)} phones certified and their codes made in ${prepS.toFixed(1)} s; ${CONNECTIONS} connections, each code scanned once`);
    console.log(`  POST /v1/tickets/admission/verify: ${fmt(result.verifyPerS)}/s, p50 ${verify.latency.p50} ms, p99 ${verify.latency.p99} ms, ${fmt(result.verifyCpuUs)} µs of the service's CPU a scan; ${fmt(admittedByCode)} admitted`);
    console.log(`  baseline, POST /v1/tickets/{id}/eventAdmission: ${fmt(result.admitPerS)}/s, p50 ${admit.latency.p50} ms, p99 ${admit.latency.p99} ms, ${fmt(result.admitCpuUs)} µs of the service's CPU an admission`);
    console.log(`  offline, the reference verifier (@resale/shared/admission-kit, WebCrypto, two signatures a code): ${fmt(offlinePerS)}/s, ${fmt(offlineAdmitted)} admitted; the kit: ${fmt(kitJson.length)} bytes, ${fmt(kitGzip)} gzipped (${(kitGzip / coded.length).toFixed(1)} bytes a ticket, ${fmt(coded.length)} tickets)`);
    console.log(`  the stadium's kit (${fmt(KIT_TICKETS)} tickets with a phone, made in ${bigPrepS.toFixed(0)} s): ${fmt(bigKitJson.length)} bytes, ${fmt(bigKitGzip)} gzipped (${(bigKitGzip / KIT_TICKETS).toFixed(1)} bytes a ticket), served in ${bigKitMs.toFixed(0)} ms`);
    console.log(`admission-verify: offline_per_s=${offlinePerS.toFixed(0)} kit_bytes=${kitJson.length} kit_gzip_bytes=${kitGzip} big_kit_tickets=${KIT_TICKETS} big_kit_bytes=${bigKitJson.length} big_kit_gzip_bytes=${bigKitGzip} big_kit_ms=${bigKitMs.toFixed(0)}`);
    console.log(`admission-verify: tickets=${TICKETS} verify_per_s=${result.verifyPerS.toFixed(0)} verify_p99_ms=${verify.latency.p99} admit_per_s=${result.admitPerS.toFixed(0)} admit_p99_ms=${admit.latency.p99} verify_cpu_us=${result.verifyCpuUs.toFixed(0)} admit_cpu_us=${result.admitCpuUs.toFixed(0)} admitted=${admittedByCode}`);
    if (offlineAdmitted !== TICKETS) throw new Error(`the offline verifier admitted ${offlineAdmitted} of ${TICKETS}`);
    if (admittedByCode !== TICKETS || result.non2xx > 0) throw new Error(`expected every code admitted once (${admittedByCode} of ${TICKETS}, ${result.non2xx} non-2xx)`);
    return result;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
