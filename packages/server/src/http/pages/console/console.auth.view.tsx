/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { cm } from './console.messages.js';
import { PasskeySignInForm, type PasskeyCeremonyForm } from './console.passkeys.view.js';
import { passkeyScriptTag } from './console.passkeys.script.js';
import { ConsoleLayout, CsrfField, Field, Notice, type ConsoleBarView } from './console.view.js';

/** The sign-in form: a work e-mail, the typed value kept with its error; then the passkey form (shown by its script where passkeys work). */
export function SignInView(props: { lang: Lang; action: string; csrf: string; email: string; error?: string | undefined; notice?: string | undefined; otherLangHref: string; passkey?: PasskeyCeremonyForm; passkeyError?: string | undefined }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={cm(lang, 'signInTitle')} otherLangHref={props.otherLangHref} head={props.passkey ? passkeyScriptTag() : null}>
      <h1>{cm(lang, 'signInTitle')}</h1>
      {props.notice ? <Notice kind="info">{props.notice}</Notice> : null}
      {props.passkeyError ? <Notice kind="error">{props.passkeyError}</Notice> : null}
      <p>{cm(lang, 'signInIntro')}</p>
      <form method="post" action={props.action} class="card" novalidate>
        <CsrfField token={props.csrf} />
        <Field name="email" label={cm(lang, 'email')} type="email" value={props.email} error={props.error} autocomplete="email" required />
        <button type="submit">{cm(lang, 'sendCode')}</button>
      </form>
      {props.passkey ? <PasskeySignInForm lang={lang} form={props.passkey} /> : null}
    </ConsoleLayout>
  );
}

/** The code form of a sign-in or of a confirmation (step-up). */
export function CodeView(props: { lang: Lang; title: string; intro: string; action: string; csrf: string; codeId: string; submit: string; error?: string | undefined; restartHref?: string; bar?: ConsoleBarView | null; otherLangHref?: string }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={props.title} bar={props.bar ?? null} {...(props.otherLangHref ? { otherLangHref: props.otherLangHref } : {})}>
      <h1>{props.title}</h1>
      <p>{props.intro}</p>
      <form method="post" action={props.action} class="card" novalidate>
        <CsrfField token={props.csrf} />
        <input type="hidden" name="c" value={props.codeId} />
        <Field name="code" label={cm(lang, 'code')} value="" error={props.error} autocomplete="one-time-code" inputmode="numeric" required />
        <div class="actions">
          <button type="submit">{props.submit}</button>
          {props.restartHref ? <a href={props.restartHref}>{cm(lang, 'otherEmail')}</a> : null}
        </div>
      </form>
    </ConsoleLayout>
  );
}

/** The page that offers to send a confirmation code (a POST sends it: a GET never sends mail). */
export function ConfirmStartView(props: { lang: Lang; email: string; action: string; csrf: string; bar: ConsoleBarView }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={cm(lang, 'confirmTitle')} bar={props.bar}>
      <h1>{cm(lang, 'confirmTitle')}</h1>
      <p>{cm(lang, 'confirmIntro', { email: props.email })}</p>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrf} />
        <button type="submit">{cm(lang, 'sendCode')}</button>
      </form>
    </ConsoleLayout>
  );
}
