/**
 * The secure ticket view's rotating code, on the holder's phone: a script of the service's own
 * page (`/tickets/view/<token>`), not a widget. It is built beside the widgets with the same
 * pipeline (vite.hosted.config.ts) and served at `/widgets/v1/ticket-code.js`.
 *
 * What it does, reading the page's `[data-ticket-code]` element (tickets.view.tsx, RotatingCode):
 * 1. A phone that holds the ticket's code (IndexedDB: its Ed25519 key and HMAC tag key, both
 *    non-extractable, and the certificate the service signed) draws it at once, online or not:
 *    each step's code (@resale/shared/admission-crypto `makeCode`) as a QR on the canvas
 *    (lean-qr), a bar running down to the next one, and the time.
 * 2. Online, it asks the service whether this phone still holds the code (`GET …/code?key=`):
 *    a ticket that changed hands (404) or moved to another phone deletes the code here; a
 *    holder's phone without a code makes a key pair and has it certified (`POST …/code`, a
 *    form answered in JSON, allowed only to the holder's signed-in session), or, when another
 *    phone holds it, offers to move it here. It asks again every 20 s while the page is visible.
 * 3. It registers the view's service worker (`/tickets/sw.js`), so a reload without network
 *    still shows the page and this script, and keeps the screen on while the code shows.
 *
 * The phone's clock may be wrong: codes are made at the service's time, the offset measured at
 * each answer and kept with the code for offline reloads.
 */
import { correction, generate } from 'lean-qr';
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import { stepAt } from '@resale/shared/admission-code';
import { generateDeviceKeys, importTagKey, makeCode, type Key } from '@resale/shared/admission-crypto';

/** What a phone keeps of a ticket's code. */
interface Held {
  v: 1;
  device: Key;
  tag: Key;
  /** The phone's public key (32 bytes): how the service tells this phone from another. */
  publicKey: Uint8Array<ArrayBuffer>;
  certificate: Uint8Array<ArrayBuffer>;
  rotation: number;
  /** When the certificate's codes stop being valid (ms). */
  notAfter: number;
  /** The service's clock minus the phone's (ms), at the last answer. */
  offset: number;
}

/** The status answer of `GET …/code` (its envelope's `data`); `gone` stands for its 404. */
interface Status {
  status: 'current' | 'moved' | 'none' | 'gone';
  shows?: boolean;
  serverTime?: string;
}

const POLL_MS = 20_000;
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromB64 = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

function start(root: HTMLElement): void {
  const d = root.dataset;
  const q = <T extends Element>(selector: string) => root.querySelector<T>(selector);
  const canvas = q<HTMLCanvasElement>('[data-code-canvas]')!;
  const bar = q<HTMLElement>('[data-code-bar]')!;
  const barFill = bar.firstElementChild as HTMLElement;
  const clock = q<HTMLElement>('[data-code-clock]')!;
  const status = q<HTMLElement>('[data-code-status]')!;
  const signIn = q<HTMLElement>('[data-code-sign-in]');
  const move = q<HTMLButtonElement>('[data-code-move]');
  const key = d.key!;
  const url = d.codeUrl!;
  const store: UseStore = createStore('resale-ticket-codes', 'codes');
  const timeFormat = new Intl.DateTimeFormat(d.lang || undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

  let held: Held | null = null;
  let offset = Date.parse(d.serverNow ?? '') - Date.now() || 0;
  let ticker: ReturnType<typeof setInterval> | null = null;
  let lastStep = -1;
  let drawing = false;
  let stopped = false;

  const say = (text: string | undefined) => {
    status.textContent = text ?? '';
    status.hidden = !text;
  };
  const now = () => Date.now() + offset;

  /** Draws the current step's code (once per step) and moves the bar and the clock. */
  const tick = async () => {
    if (!held || drawing) return;
    const t = now();
    const step = stepAt(t, held.rotation);
    const into = (t / 1000) % held.rotation;
    barFill.style.transform = `scaleX(${(1 - into / held.rotation).toFixed(3)})`;
    clock.textContent = timeFormat.format(t);
    if (step === lastStep) return;
    drawing = true;
    try {
      const text = await makeCode({ device: held.device, tag: held.tag }, held.certificate, step);
      generate(text, { minCorrectionLevel: correction.M }).toCanvas(canvas, { pad: 4 });
      canvas.dataset.step = String(step);
      lastStep = step;
    } finally {
      drawing = false;
    }
  };

  const show = (h: Held) => {
    held = h;
    offset = h.offset;
    canvas.hidden = false;
    bar.hidden = false;
    clock.hidden = false;
    if (signIn) signIn.hidden = true;
    if (move) move.hidden = true;
    if (!ticker) {
      void tick();
      ticker = setInterval(() => void tick(), 250);
    }
    keepAwake();
  };

  const hide = () => {
    held = null;
    lastStep = -1;
    if (ticker) clearInterval(ticker);
    ticker = null;
    canvas.hidden = true;
    bar.hidden = true;
    clock.hidden = true;
  };

  /** Forgets the code on this phone (the ticket is no longer the holder's here). */
  const forget = async () => {
    hide();
    await del(key, store);
  };

  /**
   * Makes this phone's key pair and has the service certify it for the holder. Under a lock of
   * the ticket across this browser's tabs (Web Locks), and only when no tab certified one
   * meanwhile: two tabs certifying at once would move the code from one to the other, and tell
   * the holder it moved.
   */
  const certify = async () => {
    const locks = (navigator as Navigator & { locks?: { request(name: string, fn: () => Promise<void>): Promise<void> } }).locks;
    if (locks) await locks.request(`resale-ticket-code:${key}`, certifyHere);
    else await certifyHere();
  };

  const certifyHere = async () => {
    const other = await get<Held>(key, store).catch(() => undefined);
    if (other && other.v === 1 && other.notAfter > now()) {
      show(other);
      return;
    }
    if (move) move.disabled = true;
    try {
      const keys = await generateDeviceKeys();
      const res = await fetch(url, {
        method: 'POST',
        credentials: 'same-origin',
        // A form, as every POST of the hosted pages (answered in JSON).
        headers: { 'X-CSRF-Token': d.csrf ?? '' },
        body: new URLSearchParams({ publicKey: b64(keys.publicKey) }),
      });
      if (res.status === 401) {
        say(d.saidSignIn);
        if (signIn) signIn.hidden = false;
        return;
      }
      if (res.status === 404) {
        await forget();
        say(d.saidGone);
        return;
      }
      if (res.status === 429) return say(d.saidTooMany);
      if (!res.ok) return say(d.saidFailed);
      const b = ((await res.json()) as { data: { certificate: string; tagKey: string; rotationSeconds: number; notAfter: string; serverTime: string } }).data;
      const h: Held = {
        v: 1,
        device: keys.privateKey,
        tag: await importTagKey(fromB64(b.tagKey)),
        publicKey: keys.publicKey,
        certificate: fromB64(b.certificate),
        rotation: b.rotationSeconds,
        notAfter: Date.parse(b.notAfter),
        offset: Date.parse(b.serverTime) - Date.now(),
      };
      await set(key, h, store);
      say('');
      show(h);
    } catch {
      say(navigator.onLine ? d.saidFailed : d.saidNeedsNetwork);
    } finally {
      if (move) move.disabled = false;
    }
  };

  /** Asks the service about this phone's code and does what the answer says; one at a time (a poll, a return to the page and the network coming back may ask together). */
  let checking: Promise<void> = Promise.resolve();
  const check = (): Promise<void> => (checking = checking.then(checkNow, checkNow));

  const checkNow = async () => {
    if (stopped) return;
    let answer: Status;
    try {
      const res = await fetch(held ? `${url}?key=${b64(held.publicKey)}` : url, { credentials: 'same-origin', cache: 'no-store' });
      if (res.status === 404) answer = { status: 'gone' };
      else if (res.status === 200) answer = ((await res.json()) as { data: Status }).data;
      else throw new Error(String(res.status));
    } catch {
      // No network (or the service is away): the code keeps going.
      say(held ? d.saidOffline : d.saidNeedsNetwork);
      return;
    }
    if (answer.serverTime) {
      offset = Date.parse(answer.serverTime) - Date.now();
      if (held && Math.abs(held.offset - offset) > 1000) {
        held = { ...held, offset };
        await set(key, held, store);
      }
    }
    if (answer.status === 'gone') {
      stopped = true;
      await forget();
      return say(d.saidGone);
    }
    if (!answer.shows) {
      await forget();
      return say(d.saidOff);
    }
    if (answer.status === 'current') {
      if (held) say('');
      return;
    }
    if (held) await forget();
    if (answer.status === 'moved') {
      say(d.saidMoved);
      if (d.holder === 'yes' && move) move.hidden = false;
      else if (signIn) signIn.hidden = false;
      return;
    }
    // No phone holds the code yet: this one takes it, for the signed-in holder.
    if (d.holder === 'yes') await certify();
    else {
      say(d.saidSignIn);
      if (signIn) signIn.hidden = false;
    }
  };

  /** Keeps the screen on while the code shows (where the browser allows it). */
  let wake: { release(): Promise<void> } | null = null;
  const keepAwake = () => {
    const lock = (navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<{ release(): Promise<void> }> } }).wakeLock;
    if (!lock || wake || document.visibilityState !== 'visible') return;
    lock.request('screen').then(
      (w) => (wake = w),
      () => undefined,
    );
  };

  move?.addEventListener('click', () => void (checking = checking.then(certify, certify)));
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') {
      wake = null;
      return;
    }
    if (held) keepAwake();
    void check();
  });
  setInterval(() => {
    if (document.visibilityState === 'visible') void check();
  }, POLL_MS);
  window.addEventListener('online', () => void check());

  if ('serviceWorker' in navigator && d.worker) {
    navigator.serviceWorker.register(d.worker, { scope: d.workerScope ?? '/tickets/view/' }).catch(() => undefined);
    // This load did not pass through the worker: it is asked to keep the view and this script now, for a reload offline.
    void navigator.serviceWorker.ready.then((r) => r.active?.postMessage({ keep: [location.pathname, new URL(import.meta.url).pathname] }));
  }

  void (async () => {
    const stored = (await get<Held>(key, store).catch(() => undefined)) ?? null;
    if (stored && stored.v === 1 && stored.notAfter > Date.now() + stored.offset) show(stored);
    else if (stored) await del(key, store);
    await check();
  })();
}

const root = document.querySelector<HTMLElement>('[data-ticket-code]');
if (root) start(root);
