/**
 * Rotating admission codes for the client's tests of `@resale/client/admission`: phones that
 * make codes as the fan's page does, certified either by a show's issuer made here (the way the
 * service signs: Ed25519 over `rs/cert/1` ‖ the certificate's head, admission.keys.ts) or by the
 * real service itself (its `AdmissionService.bind`, what the ticket page's `POST …/code` calls
 * for a signed-in holder).
 *
 * The phone's side is the package's own built modules (`dist/admission/`, not exported: the
 * verifier is the published part); the verifier under test is imported by the tests through
 * the package's name.
 */
import type { webcrypto } from 'node:crypto';
import type { ScannerKit } from '@resale/client/admission';
import { certificateBytes, certificateHead, CONTEXT, stepAt, withContext } from '../dist/admission/admission-code.js';
import { generateDeviceKeys, importTagKey, makeCode } from '../dist/admission/admission-crypto.js';
import type { TestService } from './service.js';

/** A phone's code at a moment (ms; the step of that moment), or of a step given outright. */
export type Phone = (at?: number, step?: number) => Promise<string>;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A phone certified by `certificate` for a device key pair and tag key of its own. */
function phoneOf(device: Awaited<ReturnType<typeof generateDeviceKeys>>, tagKey: Uint8Array, certificate: Uint8Array, rotation: number) {
  return async (): Promise<Phone> => {
    const tag = await importTagKey(new Uint8Array(tagKey));
    return async (at = Date.now(), step = stepAt(at, rotation)) => await makeCode({ device: device.privateKey, tag }, certificate, step);
  };
}

/** A kit row of {@link HandMadeShow.kit}. */
export interface KitRow {
  serial: number;
  ticketId: string;
  minEpoch?: number;
  state?: ScannerKit['tickets']['state'][number];
}

/** A show's issuer made here: its phones, and kits as the service would build them at `now`. */
export interface HandMadeShow {
  phone(serial: number, epoch?: number): Promise<Phone>;
  kit(rows: KitRow[], extra?: Partial<ScannerKit>): ScannerKit;
}

/**
 * A show's issuer (tag `tag`, a fresh Ed25519 key pair) at `now`, rotating every `rotation`
 * seconds: certificates valid ten hours, kits valid twelve.
 */
export async function handMadeShow(now: number, tag = 7, rotation = 15): Promise<HandMadeShow> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as unknown as webcrypto.CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return {
    async phone(serial, epoch = 1) {
      const device = await generateDeviceKeys();
      const head = certificateHead({ keyTag: tag, serial, epoch, rotation, notAfterMinutes: Math.floor(now / 60_000) + 600, devicePublicKey: device.publicKey });
      const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, withContext(CONTEXT.cert, head)));
      return await phoneOf(device, crypto.getRandomValues(new Uint8Array(32)), certificateBytes(head, signature), rotation)();
    },
    kit: (rows, extra = {}) => ({
      v: 1,
      externalReferenceEventId: 'tour-2027',
      showId: 'night-1',
      serverTime: new Date(now).toISOString(),
      validUntil: new Date(now + 12 * 3_600_000).toISOString(),
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
    }),
  };
}

/**
 * The server's internals, loaded by name at run time through a variable (as scripts/document.mts
 * loads its `start`): the client's type check stays independent of the server's sources, so the
 * little used here is typed here.
 */
const SERVER_BENCH: string = '@resale/server/bench';

interface Tx {
  readonly __tx: unique symbol;
}
interface ServerDb {
  transact<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}
interface ServerDeps {
  tickets: { get(tx: Tx, partnerId: string, ticketId: string): Promise<{ id: string }> };
  admission: { bind(tx: Tx, partnerId: string, ticketPk: string, devicePublicKey: Uint8Array): Promise<{ certificate: Uint8Array; tagKey: Uint8Array; serial: number; epoch: number; rotationSeconds: number }> };
}
interface ServerBench {
  createDb(path: string): ServerDb;
  closeDb(db: ServerDb): Promise<void> | void;
  buildDeps(opts: { db: ServerDb; clock: unknown; logger: unknown; secretKey: string; config: Record<string, unknown> }): ServerDeps;
  systemClock: unknown;
}

/** Phones certified by the running service, for its tickets. */
export interface ServicePhones {
  /** Certifies a new phone for the partner's ticket `ticketId` (a second phone of a ticket moves its epoch on: the first one's codes are revoked). */
  certify(partnerId: string, ticketId: string): Promise<Phone & { serial: number; epoch: number }>;
  close(): Promise<void>;
}

/**
 * Phones of `service`'s tickets, certified on its own database file with its secret, as the
 * ticket page certifies a signed-in holder's phone (and as bench/admission-verify.ts does).
 */
export async function servicePhones(service: TestService): Promise<ServicePhones> {
  const bench = (await import(SERVER_BENCH)) as ServerBench;
  // A logger that logs nothing (pino's shape; certifying a phone logs nothing anyway).
  const silent: Record<string, unknown> = { level: 'silent', child: () => silent };
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace']) silent[level] = () => undefined;
  const db = bench.createDb(service.databasePath);
  const deps = bench.buildDeps({
    db,
    clock: bench.systemClock,
    logger: silent,
    secretKey: service.secretKey,
    config: { env: 'test', publicBaseUrl: service.baseUrl, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'tickets@example.com' },
  });
  return {
    async certify(partnerId, ticketId) {
      const device = await generateDeviceKeys();
      const binding = await db.transact(async (tx) => await deps.admission.bind(tx, partnerId, (await deps.tickets.get(tx, partnerId, ticketId)).id, device.publicKey));
      const phone = await phoneOf(device, binding.tagKey, binding.certificate, binding.rotationSeconds)();
      return Object.assign(phone, { serial: binding.serial, epoch: binding.epoch });
    },
    close: async () => await bench.closeDb(db),
  };
}
