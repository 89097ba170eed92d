import { servedScript } from '../page-script.js';

/**
 * The console's passkey script: the browser's half of the WebAuthn ceremonies, for the two
 * forms that ask for it (`form[data-passkey="register"]` on the page that adds a passkey,
 * `form[data-passkey="sign-in"]` on the sign-in page). The forms start `hidden`: without
 * script, or in a browser without WebAuthn, the page is the e-mailed code's alone.
 *
 * The contract of such a form:
 * - `data-passkey-options` (a path of the service) and `data-passkey-options-csrf` (its CSRF
 *   token): on submit, the script posts the token there and gets `{challengeId, options}`
 *   (`options` as `@simplewebauthn/server` makes them, base64url for the binary parts), or
 *   `{error}` (shown), or `{redirect}` (a path of the service: a fresh code is needed first);
 * - then `navigator.credentials.create` (register) or `.get` (sign-in) with those options, and
 *   the credential's JSON (WebAuthn's `RegistrationResponseJSON` / `AuthenticationResponseJSON`)
 *   goes into the form's `response` field and the challenge's id into `challenge`, and the form
 *   is submitted as any form is: the server answers with its page or its redirect (a signed-in
 *   session's cookie is set as the code's is, by a normal navigation);
 * - `[data-passkey-error]` (hidden, `role=alert`) says what went wrong: `data-passkey-cancelled`
 *   when the person or the browser cancelled (`NotAllowedError`, a timeout included),
 *   `data-passkey-failed` otherwise.
 *
 * Why hand-written and not `@simplewebauthn/browser`: the hosted pages serve their scripts as
 * plain JavaScript strings with no build step (http/pages/page-script.ts), and what the library
 * would add here is the conversion between base64url and ArrayBuffer and the two JSON shapes,
 * about thirty lines; bundling it would bring a build step, or a file served out of
 * node_modules, for those. Browsers' own `PublicKeyCredential.parseCreationOptionsFromJSON` and
 * `toJSON()` would do the same, but not yet in every browser that has passkeys.
 *
 * Why its own file and not a behaviour of the pages' script: only the console uses it, so the
 * fans' pages (checkout, sell) do not download WebAuthn code. It is served from the service
 * (`script-src 'self'`; the options are fetched from the service: `connect-src 'self'`), named
 * by its content's hash and cached for good, as the pages' script is.
 */
export const PASSKEY_SCRIPT = String.raw`(function () {
  'use strict';
  var forms = document.querySelectorAll('form[data-passkey]');
  // WebAuthn needs a browser that has it, in a secure context; without it the forms stay hidden.
  if (forms.length === 0 || !window.PublicKeyCredential || !navigator.credentials || typeof window.fetch !== 'function') return;
  function toBytes(text) {
    var s = String(text).replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toText(buffer) {
    var bytes = new Uint8Array(buffer);
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function withIds(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: toBytes(c.id) }); });
  }
  function common(cred) {
    return { id: cred.id, rawId: toText(cred.rawId), type: cred.type, authenticatorAttachment: cred.authenticatorAttachment || undefined, clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {} };
  }
  function created(cred) {
    var r = cred.response;
    var out = common(cred);
    out.response = { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject), transports: r.getTransports ? r.getTransports() : undefined };
    return out;
  }
  function asserted(cred) {
    var r = cred.response;
    var out = common(cred);
    out.response = { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData), signature: toText(r.signature), userHandle: r.userHandle ? toText(r.userHandle) : undefined };
    return out;
  }
  function ceremony(kind, options) {
    var o = Object.assign({}, options, { challenge: toBytes(options.challenge) });
    if (kind === 'register') {
      o.user = Object.assign({}, o.user, { id: toBytes(o.user.id) });
      o.excludeCredentials = withIds(o.excludeCredentials);
      return navigator.credentials.create({ publicKey: o }).then(created);
    }
    o.allowCredentials = withIds(o.allowCredentials);
    return navigator.credentials.get({ publicKey: o }).then(asserted);
  }
  Array.prototype.forEach.call(forms, function (form) {
    var kind = form.getAttribute('data-passkey');
    var error = form.querySelector('[data-passkey-error]');
    var button = form.querySelector('[type=submit]');
    function fail(text) {
      if (error) { error.textContent = text || form.getAttribute('data-passkey-failed') || ''; error.hidden = false; }
      if (button) button.disabled = false;
    }
    form.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (error) error.hidden = true;
      if (button) button.disabled = true;
      var body = new URLSearchParams();
      body.set('_csrf', form.getAttribute('data-passkey-options-csrf') || '');
      window.fetch(form.getAttribute('data-passkey-options'), { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) { return res.json(); })
        .then(function (answer) {
          // Only a path of this service (a fresh code is needed first), never another site.
          if (answer.redirect && /^\/(?![\/\\])/.test(answer.redirect)) { window.location.assign(answer.redirect); return; }
          if (!answer.options || !answer.challengeId) { fail(answer.error); return; }
          return ceremony(kind, answer.options).then(function (credential) {
            form.querySelector('[name=challenge]').value = answer.challengeId;
            form.querySelector('[name=response]').value = JSON.stringify(credential);
            // The prototype's submit: no submit event again, and a field named "submit" cannot shadow it.
            HTMLFormElement.prototype.submit.call(form);
          });
        })
        .catch(function (err) {
          fail(form.getAttribute(err && err.name === 'NotAllowedError' ? 'data-passkey-cancelled' : 'data-passkey-failed'));
        });
    });
  });
})();
`;

/** The passkey script, served under its content's hash (see `servedScript`). */
export const passkeyScript = servedScript('/console/passkeys', PASSKEY_SCRIPT);

/** The script's path (its content's hash in the name). */
export const PASSKEY_SCRIPT_PATH = passkeyScript.path;

/** The tag that loads {@link PASSKEY_SCRIPT}, deferred (for a page's `head`). */
export function passkeyScriptTag() {
  return passkeyScript.tag();
}
