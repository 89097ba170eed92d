import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PASSKEY_SCRIPT } from './console.passkeys.script.js';

/** The little of the DOM these tests touch (the server's types have no DOM library, jsdom no types). */
interface El {
  hidden: boolean;
  disabled: boolean;
  textContent: string | null;
  value: string;
  dispatchEvent(event: unknown): boolean;
}
interface Win {
  document: { querySelector(selector: string): El | null };
  Event: new (type: string, init?: { cancelable?: boolean }) => unknown;
  ArrayBuffer: ArrayBufferConstructor;
  Uint8Array: Uint8ArrayConstructor;
  HTMLFormElement: { prototype: { submit: (this: El) => void } };
  eval(code: string): unknown;
}
type VirtualConsole = { on(event: string, fn: (e: { message?: string }) => void): void };
const { JSDOM, VirtualConsole } = createRequire(import.meta.url)('jsdom') as {
  JSDOM: new (html: string, opts: { runScripts: 'outside-only'; url: string; virtualConsole: VirtualConsole }) => { window: Win };
  VirtualConsole: new () => VirtualConsole;
};

const b64url = (bytes: number[]) => Buffer.from(bytes).toString('base64url');

const FORM = (kind: 'register' | 'sign-in') => `<form method="post" action="/console/x" hidden data-passkey="${kind}" data-passkey-options="/console/x/options" data-passkey-options-csrf="tok" data-passkey-cancelled="Cancelled" data-passkey-failed="Failed">
  <input type="hidden" name="_csrf" value="form-tok"><input type="hidden" name="challenge" value=""><input type="hidden" name="response" value="">
  <p data-passkey-error role="alert" hidden></p><button type="submit">Go</button></form>`;

/**
 * Runs the passkey script on `body` in a DOM with WebAuthn (unless `webauthn: false`): `fetch`
 * answers `answer` and records the call; `credentials` plays navigator.credentials; a form
 * submission is recorded instead of navigating.
 */
function page(body: string, opts: { webauthn?: boolean; answer?: unknown; credentials?: { create?: (o: any) => Promise<unknown>; get?: (o: any) => Promise<unknown> } } = {}) {
  const messages: string[] = [];
  const virtualConsole = new VirtualConsole();
  virtualConsole.on('jsdomError', (e) => messages.push(e.message ?? ''));
  const dom = new JSDOM(`<!DOCTYPE html><html lang="en"><body>${body}</body></html>`, { runScripts: 'outside-only', url: 'http://resale.test/console/sign-in', virtualConsole });
  const win = dom.window as Win & Record<string, unknown>;
  const fetched: { url: string; init: { method: string; body: { toString(): string }; credentials: string } }[] = [];
  const submitted: { challenge: string; response: string }[] = [];
  win.fetch = (url: string, init: (typeof fetched)[number]['init']) => {
    fetched.push({ url, init });
    return Promise.resolve({ json: () => Promise.resolve(opts.answer) });
  };
  if (opts.webauthn !== false) {
    win.PublicKeyCredential = function PublicKeyCredential() {};
    Object.defineProperty(win.navigator, 'credentials', { value: opts.credentials ?? {} });
  }
  win.HTMLFormElement.prototype.submit = function (this: El) {
    submitted.push({ challenge: win.document.querySelector('[name=challenge]')!.value, response: win.document.querySelector('[name=response]')!.value });
  };
  win.eval(PASSKEY_SCRIPT);
  const form = win.document.querySelector('form')!;
  const submit = async () => {
    form.dispatchEvent(new win.Event('submit', { cancelable: true }));
    // Let the script's promises (fetch, the ceremony) settle.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  };
  const bytes = (list: number[]) => new win.Uint8Array(list).buffer;
  return { win, form, fetched, submitted, submit, bytes, messages, error: win.document.querySelector('[data-passkey-error]')!, button: win.document.querySelector('button')! };
}

describe('the console’s passkey script', () => {
  it('leaves the form hidden in a browser without WebAuthn', () => {
    const { form } = page(FORM('sign-in'), { webauthn: false });
    expect(form.hidden).toBe(true);
  });

  it('signs in: asks the options with the page’s token, passes them to navigator.credentials.get as bytes, and posts the assertion as JSON', async () => {
    let asked: any;
    const p = page(FORM('sign-in'), {
      answer: { challengeId: 'cpc_1', options: { challenge: b64url([1, 2, 3, 250]), rpId: 'resale.test', allowCredentials: [{ id: b64url([9, 9]), type: 'public-key' }], userVerification: 'required', timeout: 300000 } },
      credentials: {
        get: (o) => {
          asked = o;
          return Promise.resolve({ id: 'cred', rawId: p.bytes([7, 7, 255]), type: 'public-key', authenticatorAttachment: 'platform', getClientExtensionResults: () => ({}), response: { clientDataJSON: p.bytes([1]), authenticatorData: p.bytes([2]), signature: p.bytes([3]), userHandle: p.bytes([4, 5]) } });
        },
      },
    });
    expect(p.form.hidden).toBe(false);
    await p.submit();
    expect(p.fetched).toHaveLength(1);
    expect(p.fetched[0]!.url).toBe('/console/x/options');
    expect(p.fetched[0]!.init.method).toBe('POST');
    expect(p.fetched[0]!.init.credentials).toBe('same-origin');
    expect(p.fetched[0]!.init.body.toString()).toBe('_csrf=tok');
    expect([...new Uint8Array(asked.publicKey.challenge)]).toEqual([1, 2, 3, 250]);
    expect([...new Uint8Array(asked.publicKey.allowCredentials[0].id)]).toEqual([9, 9]);
    expect(asked.publicKey.rpId).toBe('resale.test');
    expect(p.submitted).toHaveLength(1);
    expect(p.submitted[0]!.challenge).toBe('cpc_1');
    expect(JSON.parse(p.submitted[0]!.response)).toEqual({
      id: 'cred',
      rawId: b64url([7, 7, 255]),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url([1]), authenticatorData: b64url([2]), signature: b64url([3]), userHandle: b64url([4, 5]) },
    });
  });

  it('registers: the user id and excluded credentials as bytes, the attestation and transports posted', async () => {
    let asked: any;
    const p = page(FORM('register'), {
      answer: { challengeId: 'cpc_2', options: { challenge: b64url([5]), rp: { id: 'resale.test', name: 'resale console' }, user: { id: b64url([99, 117]), name: 'a@b.c', displayName: 'a@b.c' }, pubKeyCredParams: [], excludeCredentials: [{ id: b64url([1, 1]), type: 'public-key' }] } },
      credentials: {
        create: (o) => {
          asked = o;
          return Promise.resolve({ id: 'new', rawId: p.bytes([8]), type: 'public-key', getClientExtensionResults: () => ({ credProps: { rk: true } }), response: { clientDataJSON: p.bytes([1]), attestationObject: p.bytes([6, 6]), getTransports: () => ['internal', 'hybrid'] } });
        },
      },
    });
    await p.submit();
    expect([...new Uint8Array(asked.publicKey.user.id)]).toEqual([99, 117]);
    expect(asked.publicKey.user.name).toBe('a@b.c');
    expect([...new Uint8Array(asked.publicKey.excludeCredentials[0].id)]).toEqual([1, 1]);
    const sent = JSON.parse(p.submitted[0]!.response);
    expect(sent).toEqual({ id: 'new', rawId: b64url([8]), type: 'public-key', clientExtensionResults: { credProps: { rk: true } }, response: { clientDataJSON: b64url([1]), attestationObject: b64url([6, 6]), transports: ['internal', 'hybrid'] } });
  });

  it('says a cancelled ceremony was cancelled, another failure failed, and lets the person try again; nothing is posted', async () => {
    const cancelled = page(FORM('sign-in'), { answer: { challengeId: 'c', options: { challenge: 'AQ' } }, credentials: { get: () => Promise.reject(Object.assign(new Error('no'), { name: 'NotAllowedError' })) } });
    await cancelled.submit();
    expect(cancelled.error.hidden).toBe(false);
    expect(cancelled.error.textContent).toBe('Cancelled');
    expect(cancelled.button.disabled).toBe(false);
    expect(cancelled.submitted).toEqual([]);
    const failed = page(FORM('sign-in'), { answer: { challengeId: 'c', options: { challenge: 'AQ' } }, credentials: { get: () => Promise.reject(Object.assign(new Error('no'), { name: 'SecurityError' })) } });
    await failed.submit();
    expect(failed.error.textContent).toBe('Failed');
  });

  it('shows the service’s refusal, and follows a redirect only to a path of the service', async () => {
    const limited = page(FORM('sign-in'), { answer: { error: 'Too many attempts. Try again in 15 min.' } });
    await limited.submit();
    expect(limited.error.textContent).toBe('Too many attempts. Try again in 15 min.');
    const elsewhere = page(FORM('register'), { answer: { redirect: '//evil.example/x' } });
    await elsewhere.submit();
    expect(elsewhere.error.textContent).toBe('Failed');
    expect(elsewhere.messages.join('\n')).not.toContain('navigation');
    const confirm = page(FORM('register'), { answer: { redirect: '/console/confirm?next=%2Fconsole%2Faccount%2Fpasskeys%2Fnew' } });
    await confirm.submit();
    // jsdom does not navigate; it says it was asked to.
    expect(confirm.messages.join('\n')).toContain('navigation');
    expect(confirm.error.hidden).toBe(true);
  });
});
