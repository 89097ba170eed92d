/**
 * The venue's scanner page (`/door`, the service's http/pages/door): a script of the service's
 * own page, not a widget, built beside the widgets (vite.hosted.config.ts) and served at
 * `/widgets/v1/door.js`.
 *
 * What it does, reading the page's `[data-door]` element:
 * 1. The door's token: from the link's fragment (`/door#door_…`), which no request carries; kept
 *    in IndexedDB and taken out of the address bar, so a reload (online or not) finds it and a
 *    glance at the screen does not give it away. A new door link on the device replaces the
 *    last door and all it kept.
 * 2. Online, every scan is checked by the service (`POST /v1/door/verify`), which admits the
 *    ticket once across every door. Without network (or the service away), the scan is checked
 *    on the device against the show's scanner kit (@resale/shared/admission-kit, the verifier
 *    of @resale/client/admission), and an admission is queued, kept in IndexedDB, and sent
 *    (`POST /v1/door/sync`) as soon as the network is back; the service names any second entry.
 * 3. The kit is fetched at start and every 30 s (only what changed, `since` the last), kept in
 *    IndexedDB with what this door admitted, so a reload without network still checks codes,
 *    and a ticket this door let in is not let in twice, synced or not.
 * 4. Codes are read from a handheld scanner (it types the code and Enter), typed, or with the
 *    camera: through the BarcodeDetector API where the browser has it, else frame by frame by the
 *    page's own decoder (door-qr.ts, a file of its own loaded the first time, kept offline).
 *
 * Every text comes from the page (`data-texts`, the server's door.messages.ts), in its language.
 * The DOM is written with `textContent` only: a ticket's id or seat is the partner's text.
 */
import { createStore, clear, get, set, type UseStore } from 'idb-keyval';
import { parseCode } from '@resale/shared/admission-code';
import { createKitVerifier, mergeKit, type KitVerifier, type ScannerKit } from '@resale/shared/admission-kit';
// Its type only: the decoder itself is loaded at run time, where needed (frameReader).
import type { readQr as readQrType } from './door-qr.js';

/** GET /v1/door's answer (its envelope's `data`). */
interface DoorInfo {
  doorId: string;
  label: string;
  expiresAt: string;
  show: { externalReferenceEventId: string; showId: string; eventTitle: string; title: string; startsAt: string; timeZone: string; status: string };
  codes: { rotating: boolean; rotationSeconds: number };
  serverTime: string;
}

/** A verdict as the page shows it, online (the service's) or offline (the kit's). */
interface Verdict {
  valid: boolean;
  reason: string;
  repeat: boolean;
  ticket: { ticketId: string; section: string | null; row: string | null; seat: string | null } | null;
  offline: boolean;
  /** When it was scanned (the service's clock). */
  at: number;
  /** A second entry the service found when a queued admission was sent. */
  second?: boolean;
}

/** The service's verdict (`AdmissionVerifyResult`): its ticket names the seat apart. */
interface Answer {
  valid: boolean;
  reason: string;
  repeat: boolean;
  ticket: { ticketId: string; seat: { section: string | null; row: string | null; seat: string | null } } | null;
}

/** The service's ticket as the page shows a ticket, online or offline. */
const ticketOf = (a: Answer): Verdict['ticket'] => (a.ticket ? { ticketId: a.ticket.ticketId, ...a.ticket.seat } : null);

/** An admission made offline, waiting to be sent. */
interface Queued {
  text: string;
  scannedAt: string;
}

const KIT_EVERY_MS = 30_000;
const SYNC_EVERY_MS = 15_000;
/** A call slower than this counts as no network: the door checks with its kit instead. */
const CALL_TIMEOUT_MS = 4_000;
/** The scans the log keeps. */
const LOG_SIZE = 30;
/** A code in front of the camera is read many times a second: checked again only after it was out of view this long. */
const CAMERA_REPEAT_MS = 3_000;
/** The longest side of a frame the page decodes itself (door-qr.ts): a ticket's code held up to a camera is a few hundred pixels wide. */
const FRAME_MAX = 640;
/** The page's own QR decoder's file, beside this script (`/widgets/v1/door-qr.js`), loaded the first time it is needed. */
const QR_FILE = 'door-qr.js';
// Named by a variable: a literal `new URL('…', import.meta.url)` is an asset to Vite, which would inline the source.
const QR_MODULE = new URL(QR_FILE, import.meta.url).href;
const SYNC_PAGE = 500;

/** A call failed for want of network or service, not by the door's own fault. */
class Unreachable extends Error {}
/** The door's token opens no door (revoked, expired, unknown). */
class Closed extends Error {}

function start(root: HTMLElement): void {
  const texts = JSON.parse(root.dataset.texts ?? '{}') as Record<string, string>;
  const say = (key: string, vars: Record<string, string | number> = {}) => (texts[key] ?? key).replace(/\{(\w+)\}/g, (all, name: string) => (name in vars ? String(vars[name]) : all));
  const q = <T extends Element>(selector: string) => root.querySelector<T>(selector)!;
  const message = q<HTMLElement>('[data-door-message]');
  const scan = q<HTMLElement>('[data-door-scan]');
  const net = q<HTMLElement>('[data-door-net]');
  const doorOf = q<HTMLElement>('[data-door-of]');
  const verdictBox = q<HTMLElement>('[data-door-verdict]');
  const form = q<HTMLFormElement>('[data-door-form]');
  const input = form.querySelector<HTMLInputElement>('input')!;
  const video = q<HTMLVideoElement>('[data-door-video]');
  const cameraButton = q<HTMLButtonElement>('[data-door-camera]');
  const log = q<HTMLOListElement>('[data-door-log]');
  const logEmpty = q<HTMLElement>('[data-door-log-empty]');
  const api = root.dataset.api ?? '/v1/door';
  const lang = root.dataset.lang || undefined;
  const clockFormat = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const store: UseStore = createStore('resale-door', 'state');

  let token = '';
  let door: DoorInfo | null = null;
  let kit: ScannerKit | null = null;
  /** The service's clock minus the device's (ms). */
  let offset = 0;
  /** The tickets (serials) this door admitted, with the text that did (the verifier's memory, kept across kits and reloads). */
  let admitted = new Map<number, string>();
  let verifier: KitVerifier | null = null;
  let queue: Queued[] = [];
  let entries: Verdict[] = [];
  let closed = false;

  const now = () => Date.now() + offset;
  const note = (text: string | null, kind: 'info' | 'warn' | 'error' = 'info') => {
    message.textContent = text ?? '';
    message.hidden = text === null;
    message.className = `notice ${kind}`;
  };

  /** Scans, kit changes and syncs one at a time: an admission made while the kit changes is not lost. */
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = turn.then(fn);
    turn = run.catch(() => undefined);
    return run;
  };

  /** A call of the door API with the door's token; Unreachable without network or service, Closed for a token that opens no door. */
  const call = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: { data: T; errors?: { path?: string }[] } }> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), CALL_TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(api + path, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        cache: 'no-store',
        credentials: 'omit',
        signal: abort.signal,
      });
    } catch {
      throw new Unreachable();
    } finally {
      clearTimeout(timer);
    }
    if (res.status === 401) throw new Closed();
    // The service away (a deploy, its database), or the door's rate: as if offline for now.
    if (res.status >= 500 || res.status === 429) throw new Unreachable();
    return { status: res.status, body: await res.json() };
  };

  const setReachable = (yes: boolean) => {
    net.hidden = false;
    net.dataset.net = yes ? 'online' : 'offline';
    net.textContent = yes ? say('online') : say('offline', { time: kit ? clockFormat.format(Date.parse(kit.serverTime)) : '–' });
  };

  const renderStats = () => {
    q('[data-door-admitted]').textContent = String(admitted.size);
    q('[data-door-waiting]').textContent = String(queue.length);
    q('[data-door-kit-tickets]').textContent = kit ? String(kit.tickets.serial.length) : '0';
    q('[data-door-kit-time]').textContent = kit ? clockFormat.format(Date.parse(kit.serverTime)) : '–';
  };

  const renderDoor = () => {
    if (!door) return;
    const when = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: door.show.timeZone }).format(Date.parse(door.show.startsAt));
    doorOf.textContent = say('doorOf', { door: door.label, event: door.show.eventTitle, show: door.show.title, date: when });
    doorOf.hidden = false;
  };

  const seatOf = (t: NonNullable<Verdict['ticket']>) => (t.section ?? t.row ?? t.seat ? say('seat', { section: t.section ?? '–', row: t.row ?? '–', seat: t.seat ?? '–' }) : '');

  /** One line of the log (newest first). */
  const logLine = (v: Verdict) => {
    const li = document.createElement('li');
    li.dataset.in = v.valid ? 'yes' : 'no';
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = v.valid ? say('in') : say('no');
    const time = document.createElement('time');
    time.dateTime = new Date(v.at).toISOString();
    time.textContent = clockFormat.format(v.at);
    const what = document.createElement('span');
    const why = v.second && v.ticket ? say('secondEntry', { ticket: v.ticket.ticketId, time: clockFormat.format(v.at) }) : say(`reason_${v.reason}`);
    what.textContent = [why, v.ticket?.ticketId, v.ticket ? seatOf(v.ticket) : '', v.offline ? `(${say('offlineTag')})` : ''].filter(Boolean).join(' · ');
    li.append(tag, time, what);
    return li;
  };

  const renderLog = () => {
    log.replaceChildren(...entries.map(logLine));
    logEmpty.hidden = entries.length > 0;
  };

  const record = async (v: Verdict) => {
    entries = [v, ...entries].slice(0, LOG_SIZE);
    renderLog();
    await set('log', entries, store);
  };

  const showVerdict = (v: Verdict) => {
    verdictBox.dataset.verdict = v.valid ? 'in' : 'no';
    const big = document.createElement('p');
    big.className = 'big';
    big.textContent = v.valid ? say('in') : say('no');
    const why = document.createElement('p');
    why.className = 'why';
    why.textContent = [say(`reason_${v.reason}`), v.repeat ? `(${say('repeat')})` : '', v.offline ? `(${say('offlineTag')})` : ''].filter(Boolean).join(' ');
    const who = document.createElement('p');
    who.className = 'who';
    who.textContent = v.ticket ? [v.ticket.ticketId, seatOf(v.ticket)].filter(Boolean).join(' · ') : '';
    verdictBox.replaceChildren(big, why, who);
    navigator.vibrate?.(v.valid ? 80 : [60, 60, 60]);
  };

  const persist = async () => {
    await set('admitted', [...admitted], store);
    await set('queue', queue, store);
    renderStats();
  };

  /** A door link that opens no door any more: said, and no scan taken (what waits to be sent stays counted). */
  const close = () => {
    closed = true;
    scan.hidden = true;
    stopCamera();
    note(say('closed'), 'error');
  };

  /** The tickets this door admitted, by a code's serial: what a verifier of the next kit must remember. */
  const remember = (text: string) => {
    const parsed = parseCode(text);
    if (parsed.ok) admitted.set(parsed.code.serial, text.trim().toUpperCase());
    verifier = null;
  };

  /** A scan: online by the service, else offline by the kit (and queued when it admits). */
  const check = (raw: string) =>
    inTurn(async () => {
      const text = raw.trim();
      if (!text || closed) return;
      verdictBox.dataset.verdict = 'checking';
      verdictBox.replaceChildren(Object.assign(document.createElement('p'), { className: 'why', textContent: say('checking') }));
      const at = now();
      let v: Verdict | null = null;
      try {
        const res = await call<Answer>('/verify', { method: 'POST', body: { text } });
        if (res.status === 200) {
          const d = res.body.data;
          v = { valid: d.valid, reason: d.reason, repeat: d.repeat, ticket: ticketOf(d), offline: false, at };
          if (d.valid && !d.repeat) remember(text);
          setReachable(true);
        } else {
          // 400: not something a phone shows (too long, empty): said as not a code.
          v = { valid: false, reason: 'malformed', repeat: false, ticket: null, offline: false, at };
        }
      } catch (err) {
        if (err instanceof Closed) return close();
        setReachable(false);
      }
      if (!v) {
        if (!kit) {
          note(say('needsKit'), 'warn');
          v = { valid: false, reason: 'kit_expired', repeat: false, ticket: null, offline: true, at };
        } else {
          verifier ??= await createKitVerifier(kit, { admitted });
          const r = await verifier.verify(text, at);
          v = { valid: r.valid, reason: r.reason, repeat: r.repeat, ticket: r.ticket, offline: true, at };
          if (r.valid && !r.repeat) {
            admitted = new Map(verifier.admitted);
            queue.push({ text: text.toUpperCase(), scannedAt: new Date(at).toISOString() });
          }
        }
      }
      await persist();
      showVerdict(v);
      await record(v);
    });

  /** Sends what was admitted offline; the service names second entries. Quietly waits when there is no network. */
  const sync = () =>
    inTurn(async () => {
      while (queue.length > 0 && !closed) {
        const page = queue.slice(0, SYNC_PAGE);
        let res;
        try {
          res = await call<{ results: Answer[] }>('/sync', { method: 'POST', body: { scans: page } });
        } catch (err) {
          if (err instanceof Closed) return close();
          return setReachable(false);
        }
        setReachable(true);
        if (res.status === 200) {
          for (const [i, r] of res.body.data.results.entries()) {
            if (!r.valid && r.reason === 'already_admitted') await record({ valid: false, reason: r.reason, repeat: false, ticket: ticketOf(r), offline: true, at: Date.parse(page[i]!.scannedAt), second: true });
          }
          queue = queue.slice(page.length);
        } else {
          // Scans the service can never take (older than it accepts): dropped, the rest sent again.
          const wrong = new Set((res.body.errors ?? []).map((e) => Number(/^scans\.(\d+)/.exec(e.path ?? '')?.[1])).filter((i) => !Number.isNaN(i)));
          if (wrong.size === 0) return;
          queue = queue.filter((_, i) => i >= page.length || !wrong.has(i));
        }
        await persist();
      }
    });

  /** The show's kit, or only what changed since the last. */
  const refreshKit = () =>
    inTurn(async () => {
      if (closed) return;
      try {
        const res = await call<ScannerKit>(`/scanner-kit${kit ? `?since=${encodeURIComponent(kit.serverTime)}` : ''}`);
        if (res.status !== 200) return;
        const next = res.body.data;
        kit = kit ? mergeKit(kit, next) : next;
        offset = Date.parse(next.serverTime) - Date.now();
        verifier = null;
        await set('kit', kit, store);
        await set('offset', offset, store);
        setReachable(true);
        renderStats();
      } catch (err) {
        if (err instanceof Closed) return close();
        setReachable(false);
      }
    });

  // The camera: read by the browser where it reads QR codes itself (BarcodeDetector), else by
  // the page, frame by frame, with its own decoder (door-qr.ts), loaded the first time.
  type Detector = { detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]> };
  const Barcode = (window as unknown as { BarcodeDetector?: { new (o: { formats: string[] }): Detector; getSupportedFormats?(): Promise<string[]> } }).BarcodeDetector;
  let stream: MediaStream | null = null;
  let lastRead = { text: '', at: 0 };
  function stopCamera() {
    stream?.getTracks().forEach((t) => t.stop());
    stream = null;
    video.hidden = true;
    cameraButton.textContent = say('camera');
  }
  const startCamera = async (detector: Detector) => {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
    } catch {
      note(say('cameraFailed'), 'warn');
      return;
    }
    video.srcObject = stream;
    video.hidden = false;
    cameraButton.textContent = say('cameraStop');
    await video.play().catch(() => undefined);
    const read = async () => {
      if (!stream) return;
      const found = await detector.detect(video).catch(() => []);
      const text = found[0]?.rawValue;
      if (text) {
        // Checked when it comes into view, not again while it stays there.
        const fresh = text !== lastRead.text || Date.now() - lastRead.at > CAMERA_REPEAT_MS;
        lastRead = { text, at: Date.now() };
        if (fresh) await check(text);
      }
      setTimeout(() => void read(), 200);
    };
    void read();
  };
  /**
   * The page's own detector: each frame drawn on a canvas at most {@link FRAME_MAX} pixels a
   * side and decoded by door-qr.js, which the page's worker is asked to keep for a reload
   * offline. Its loading failing (offline before it was ever kept) says so once and reads
   * nothing: the scanner and typing still work.
   */
  const frameReader = (): Detector => {
    keepOffline([new URL(QR_MODULE).pathname]);
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true });
    let decoder: Promise<typeof readQrType | null> | undefined;
    return {
      async detect(source) {
        decoder ??= (import(/* @vite-ignore */ QR_MODULE) as Promise<{ readQr: typeof readQrType }>).then(
          (m) => m.readQr,
          () => {
            note(say('cameraFailed'), 'warn');
            return null;
          },
        );
        const readQr = await decoder;
        const { videoWidth: w, videoHeight: h } = source;
        if (!readQr || !context || !w || !h) return [];
        const scale = Math.min(1, FRAME_MAX / Math.max(w, h));
        canvas.width = Math.round(w * scale);
        canvas.height = Math.round(h * scale);
        context.drawImage(source, 0, 0, canvas.width, canvas.height);
        const text = readQr(context.getImageData(0, 0, canvas.width, canvas.height).data, canvas.width, canvas.height);
        return text ? [{ rawValue: text }] : [];
      },
    };
  };
  /** Asks the page's service worker to keep `paths` for a reload offline (it takes only what it keeps anyway). */
  function keepOffline(paths: string[]) {
    if (!('serviceWorker' in navigator) || !root.dataset.worker) return;
    void navigator.serviceWorker.ready.then((r) => r.active?.postMessage({ keep: paths }));
  }
  const offerCamera = (detector: Detector) => {
    cameraButton.hidden = false;
    cameraButton.addEventListener('click', () => (stream ? stopCamera() : void startCamera(detector)));
  };
  if (Barcode) {
    void (Barcode.getSupportedFormats?.() ?? Promise.resolve(['qr_code'])).then((formats) => offerCamera(formats.includes('qr_code') ? new Barcode({ formats: ['qr_code'] }) : frameReader()));
  } else if ('mediaDevices' in navigator) {
    // Decoded by the page wherever there is a camera API (none on a page not served over HTTPS: no button then).
    offerCamera(frameReader());
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value;
    input.value = '';
    input.focus();
    void check(text);
  });
  q('[data-door-sync]').addEventListener('click', () => void sync().then(refreshKit));
  q('[data-door-forget]').addEventListener('click', () => {
    if (queue.length > 0 && !window.confirm(say('forgetUnsent', { n: queue.length }))) return;
    void inTurn(async () => {
      await clear(store);
      closed = true;
      scan.hidden = true;
      doorOf.hidden = true;
      net.hidden = true;
      stopCamera();
      note(say('forgotten'));
    });
  });
  window.addEventListener('online', () => void sync().then(refreshKit));
  setInterval(() => void refreshKit(), KIT_EVERY_MS);
  setInterval(() => void sync(), SYNC_EVERY_MS);

  if ('serviceWorker' in navigator && root.dataset.worker) {
    navigator.serviceWorker.register(root.dataset.worker, { scope: root.dataset.workerScope ?? '/door' }).catch(() => undefined);
    // This load did not pass through the worker: it is asked to keep the page and this script now, for a reload offline.
    keepOffline([location.pathname, new URL(import.meta.url).pathname]);
  }

  void (async () => {
    const fromLink = /^#(door_[0-9A-Za-z]+)$/.exec(location.hash)?.[1];
    const kept = await get<string>('token', store).catch(() => undefined);
    if (fromLink) {
      // Another door's link on this device: what the last door kept is not this one's.
      if (kept !== fromLink) {
        await clear(store);
        await set('token', fromLink, store);
      }
      history.replaceState(null, '', location.pathname + location.search);
    }
    token = fromLink ?? kept ?? '';
    if (!token) return note(say('noDoor'));
    [door, kit, offset, admitted, queue, entries] = await Promise.all([
      get<DoorInfo>('door', store).then((x) => x ?? null),
      get<ScannerKit>('kit', store).then((x) => x ?? null),
      get<number>('offset', store).then((x) => x ?? 0),
      get<[number, string][]>('admitted', store).then((x) => new Map(x ?? [])),
      get<Queued[]>('queue', store).then((x) => x ?? []),
      get<Verdict[]>('log', store).then((x) => x ?? []),
    ]);
    try {
      const res = await call<DoorInfo>('');
      door = res.body.data;
      offset = Date.parse(door.serverTime) - Date.now();
      await set('door', door, store);
      setReachable(true);
    } catch (err) {
      if (err instanceof Closed) return close();
      setReachable(false);
    }
    if (!door) return note(say('needsKit'), 'warn');
    renderDoor();
    if (!door.codes.rotating) return note(say('codesOff'), 'warn');
    await refreshKit();
    if (closed) return;
    note(kit ? null : say('needsKit'), 'warn');
    scan.hidden = false;
    renderStats();
    renderLog();
    input.focus();
    await sync();
  })();
}

const root = document.querySelector<HTMLElement>('[data-door]');
if (root) start(root);
