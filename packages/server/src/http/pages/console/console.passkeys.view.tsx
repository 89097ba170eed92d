/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { pkm } from './console.passkeys.messages.js';
import { passkeyScriptTag } from './console.passkeys.script.js';
import { ConsoleLayout, CsrfField, Field, Notice, type ConsoleBarView } from './console.view.js';

/**
 * The console's passkey pages, stateless: the account page (a person's passkeys, renamed and
 * removed there), the page that adds one, and the passkey form of the sign-in page. The
 * ceremony's forms are driven by the console's passkey script (console.passkeys.script.ts)
 * and start `hidden`: without script they never show.
 */

/** A passkey as the account page lists it, with its form's action and CSRF token. */
export interface PasskeyItemView {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  action: string;
  csrf: string;
}

/** What a ceremony's form needs: where it posts its answer, where the script asks for the options, and the two CSRF tokens. */
export interface PasskeyCeremonyForm {
  action: string;
  csrf: string;
  optionsUrl: string;
  optionsCsrf: string;
}

/** The attributes that hand a form to the passkey script (see its contract). */
function ceremonyAttributes(kind: 'register' | 'sign-in', form: PasskeyCeremonyForm, texts: { cancelled: string; failed: string }) {
  return { 'data-passkey': kind, 'data-passkey-options': form.optionsUrl, 'data-passkey-options-csrf': form.optionsCsrf, 'data-passkey-cancelled': texts.cancelled, 'data-passkey-failed': texts.failed };
}

/** The hidden fields the script fills with the challenge's id and the credential's JSON. */
function CeremonyFields(props: { csrf: string }) {
  return (
    <>
      <CsrfField token={props.csrf} />
      <input type="hidden" name="challenge" value="" />
      <input type="hidden" name="response" value="" />
    </>
  );
}

/** Where the script says what went wrong (hidden until it does). */
function CeremonyError() {
  return <p class="field-error" role="alert" data-passkey-error hidden></p>;
}

/** The account page: who signs in, their passkeys (rename, remove) and the way to add one. */
export function AccountView(props: { lang: Lang; bar: ConsoleBarView; otherLangHref: string; email: string; passkeys: readonly PasskeyItemView[]; addHref: string | null; max: number; nameMax: number; notice?: { kind: 'ok' | 'error'; text: string } | undefined }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={pkm(lang, 'accountTitle')} current="account" bar={props.bar} otherLangHref={props.otherLangHref}>
      <h1>{pkm(lang, 'accountTitle')}</h1>
      {props.notice ? <Notice kind={props.notice.kind}>{props.notice.text}</Notice> : null}
      <p>{pkm(lang, 'accountIntro', { email: props.email })}</p>
      <h2>{pkm(lang, 'passkeysTitle')}</h2>
      {props.passkeys.length === 0 ? (
        <p class="empty">{pkm(lang, 'noPasskeys')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{pkm(lang, 'name')}</th>
                <th scope="col">{pkm(lang, 'added')}</th>
                <th scope="col">{pkm(lang, 'lastUsed')}</th>
                <th scope="col">{pkm(lang, 'rename')}</th>
              </tr>
            </thead>
            <tbody>
              {props.passkeys.map((p) => (
                <tr>
                  <td>{p.name}</td>
                  <td>{formatInstant(p.createdAt, lang, 'UTC', 'long')}</td>
                  <td>{p.lastUsedAt === null ? pkm(lang, 'never') : formatInstant(p.lastUsedAt, lang, 'UTC', 'long')}</td>
                  <td>
                    <form method="post" action={p.action} class="inline-form">
                      <CsrfField token={p.csrf} />
                      <label class="visually-hidden" for={`name-${p.id}`}>
                        {pkm(lang, 'renameLabel', { name: p.name })}
                      </label>
                      <input id={`name-${p.id}`} name="name" value={p.name} maxlength={props.nameMax} autocomplete="off" />
                      <button type="submit" name="op" value="rename" class="secondary">
                        {pkm(lang, 'rename')}
                      </button>
                      <button type="submit" name="op" value="remove" class="danger-outline" aria-label={pkm(lang, 'removeLabel', { name: p.name })}>
                        {pkm(lang, 'remove')}
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.passkeys.length > 0 ? <p class="hint">{pkm(lang, 'removeHint')}</p> : null}
      {props.addHref ? (
        <p>
          <a class="button" href={props.addHref}>
            {pkm(lang, 'addPasskey')}
          </a>
        </p>
      ) : (
        <p>{pkm(lang, 'maxPasskeys', { max: props.max })}</p>
      )}
      <p class="hint">{pkm(lang, 'addHint')}</p>
      <p class="hint">{pkm(lang, 'stepUpNote')}</p>
    </ConsoleLayout>
  );
}

/** The page that adds a passkey: its name, then the browser's ceremony (the script's); the typed name kept with an error. */
export function AddPasskeyView(props: { lang: Lang; bar: ConsoleBarView; otherLangHref: string; form: PasskeyCeremonyForm; name: string; nameMax: number; error?: string | undefined; backHref: string }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={pkm(lang, 'addTitle')} current="account" bar={props.bar} otherLangHref={props.otherLangHref} head={passkeyScriptTag()}>
      <h1>{pkm(lang, 'addTitle')}</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <p>{pkm(lang, 'addIntro')}</p>
      <noscript>
        <Notice kind="warn">{pkm(lang, 'noScript')}</Notice>
      </noscript>
      <form method="post" action={props.form.action} class="card" hidden {...ceremonyAttributes('register', props.form, { cancelled: pkm(lang, 'cancelled'), failed: pkm(lang, 'failed') })}>
        <CeremonyFields csrf={props.form.csrf} />
        <Field name="name" label={pkm(lang, 'name')} value={props.name} hint={pkm(lang, 'nameHint')} autocomplete="off" />
        <CeremonyError />
        <button type="submit">{pkm(lang, 'createPasskey')}</button>
      </form>
      <p>
        <a href={props.backHref}>{pkm(lang, 'accountTitle')}</a>
      </p>
    </ConsoleLayout>
  );
}

/** The sign-in page's passkey form: one button, shown by the script where passkeys work. */
export function PasskeySignInForm(props: { lang: Lang; form: PasskeyCeremonyForm }) {
  const { lang } = props;
  return (
    <form method="post" action={props.form.action} class="card" hidden {...ceremonyAttributes('sign-in', props.form, { cancelled: pkm(lang, 'signInCancelled'), failed: pkm(lang, 'signInRejected') })}>
      <CeremonyFields csrf={props.form.csrf} />
      <p>{pkm(lang, 'signInOr')}</p>
      <CeremonyError />
      <button type="submit" class="secondary">
        {pkm(lang, 'signInWithPasskey')}
      </button>
    </form>
  );
}
