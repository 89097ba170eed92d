/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { cspWith, Layout } from '../layout.js';
import { cm } from './console.messages.js';
import { mm } from './console.money.messages.js';
import { pkm } from './console.passkeys.messages.js';
import { CONSOLE_CSRF_FIELD } from './console.session.js';

/**
 * The console's shell and its shared pieces, stateless: the pages' handlers compute everything
 * a view shows (URLs, CSRF tokens, the signed-in person) into its props.
 */

/** What the console adds to the design system: its bar, data tables that scroll on a phone, key boxes. */
export const CONSOLE_CSS = `main.console{max-width:72rem}
.console-bar{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:center;justify-content:space-between;margin:0 0 var(--s4);padding:0 0 var(--s3);border-bottom:1px solid var(--line)}
.console-bar nav{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4)}.console-bar nav a{font-weight:600}.console-bar nav a[aria-current=page]{color:var(--text);text-decoration:none}
.console-bar .who{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s3);align-items:center;font-size:var(--t-sm);color:var(--muted)}.console-bar form{margin:0}
.table-wrap{overflow-x:auto;margin:0 0 var(--s4);border:1px solid var(--line);border-radius:12px;background:var(--surface)}
table.data{width:100%;border-collapse:collapse;font-size:var(--t-sm)}table.data th,table.data td{text-align:left;padding:var(--s2) var(--s3);border-bottom:1px solid var(--line);vertical-align:top}
table.data th{font-weight:600;white-space:nowrap}table.data tr:last-child td{border-bottom:0}table.data td.num{text-align:right;font-variant-numeric:tabular-nums}
table.data code{overflow-wrap:break-word}
.secret{display:block;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--canvas);border:1px solid var(--border);border-radius:var(--radius);padding:var(--s2) var(--s3);overflow-wrap:anywhere;user-select:all}
.grid{display:grid;gap:0 var(--s4)}@media (min-width:700px){.grid{grid-template-columns:repeat(2,minmax(0,1fr))}}
textarea{display:block;width:100%;min-height:6rem;font:inherit;padding:var(--s2) var(--s3);border:1px solid var(--border);border-radius:var(--radius);background:var(--surface);color:var(--text)}
textarea[aria-invalid=true]{border:2px solid var(--error)}textarea.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:var(--t-sm);min-height:12rem}
.preview{margin:var(--s5) 0;padding:var(--s4);border:1px dashed var(--border);border-radius:12px}.preview-page{border:1px solid var(--line);border-radius:12px;overflow:hidden;background:var(--canvas);margin:0 0 var(--s4)}.preview-body{padding:var(--s3) var(--s4)}.preview-body p{margin:0 0 var(--s2)}
label.check{display:flex;gap:var(--s2);align-items:flex-start;font-weight:400}.card-number{white-space:nowrap}
dl.facts{display:grid;grid-template-columns:auto minmax(0,1fr);gap:var(--s2) var(--s4);margin:0 0 var(--s4)}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}@media (max-width:480px){dl.facts{grid-template-columns:minmax(0,1fr)}dl.facts dd{margin-bottom:var(--s2)}}
.inline-form{display:flex;flex-wrap:wrap;gap:var(--s2);align-items:end}.inline-form .field{margin:0;flex:1 1 12rem}
.change{margin:0;padding:0;list-style:none}.change li{overflow-wrap:anywhere}
.stats{display:grid;gap:var(--s3);grid-template-columns:repeat(auto-fill,minmax(min(100%,13rem),1fr));margin:var(--s4) 0}
.stat{background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s3) var(--s4)}.stat p{margin:0}.stat .stat-label{color:var(--muted);font-size:var(--t-sm)}.stat .stat-value{font-size:var(--t-xl);font-weight:700;font-variant-numeric:tabular-nums}
figure.chart{margin:0 0 var(--s4);background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s3)}figure.chart figcaption{font-weight:600;margin:0 0 var(--s2)}
.chart rect{fill:var(--brand)}.chart .axis{stroke:var(--border);stroke-width:1}.chart .label{fill:var(--muted);font-size:20px}
nav.tabs{display:flex;flex-wrap:wrap;gap:var(--s1) var(--s4);margin:0 0 var(--s4);border-bottom:1px solid var(--line)}nav.tabs a{padding:var(--s2) 0;font-weight:600;text-decoration:none;border-bottom:3px solid transparent}nav.tabs a[aria-current=page]{color:var(--text);border-bottom-color:var(--brand)}
`;

/** The console's Content-Security-Policy: the pages' one (no script) with the console's stylesheet. */
export const CONSOLE_CSP = cspWith({ styles: [CONSOLE_CSS] });

/** The signed-in person as the bar shows them. */
export interface ConsoleBarView {
  email: string;
  operator: boolean;
  signOutAction: string;
  signOutCsrf: string;
}

/** The console's shell: the design system's page with the console's bar (sections, who is signed in, sign-out, the other language). */
export function ConsoleLayout(props: { lang: Lang; title: string; current?: 'home' | 'partners' | 'money' | 'audit' | 'account'; bar?: ConsoleBarView | null; otherLangHref?: string; head?: Child; children?: Child }) {
  const { lang, bar } = props;
  const link = (href: string, key: 'navHome' | 'navPartners' | 'navAudit', current: boolean) => (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {cm(lang, key)}
    </a>
  );
  return (
    <Layout lang={lang} title={`${props.title} · ${cm(lang, 'console')}`} wide head={
        <>
          <style>{raw(CONSOLE_CSS)}</style>
          {props.head ?? null}
        </>
      }
    >
      <div class="console-bar">
        {bar ? (
          <nav aria-label={cm(lang, 'nav')}>
            {link('/console', 'navHome', props.current === 'home')}
            {bar.operator ? link('/console/partners', 'navPartners', props.current === 'partners') : null}
            {bar.operator ? (
              <a href="/console/money" aria-current={props.current === 'money' ? 'page' : undefined}>
                {mm(lang, 'navMoney')}
              </a>
            ) : null}
            {link('/console/audit', 'navAudit', props.current === 'audit')}
          </nav>
        ) : (
          <strong>{cm(lang, 'console')}</strong>
        )}
        <div class="who">
          {props.otherLangHref ? (
            <a href={props.otherLangHref} lang={lang === 'en' ? 'es' : 'en'}>
              {cm(lang, 'otherLang')}
            </a>
          ) : null}
          {bar ? (
            <>
              <span>
                {cm(lang, 'signedInAs', { email: bar.email })}
                {bar.operator ? ` (${cm(lang, 'operator')})` : ''}
              </span>
              <a href="/console/account" aria-current={props.current === 'account' ? 'page' : undefined}>
                {pkm(lang, 'navAccount')}
              </a>
              <form method="post" action={bar.signOutAction}>
                <CsrfField token={bar.signOutCsrf} />
                <button type="submit" class="link-button">
                  {cm(lang, 'signOut')}
                </button>
              </form>
            </>
          ) : null}
        </div>
      </div>
      {props.children ?? null}
    </Layout>
  );
}

/** The hidden CSRF field of a console form. */
export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CONSOLE_CSRF_FIELD} value={props.token} />;
}

/** Every error of a form at once, each linking to its field (`#f-<name>`), focused first. */
export function ErrorSummary(props: { lang: Lang; errors: Record<string, string>; labels?: Record<string, string> }) {
  const entries = Object.entries(props.errors);
  if (entries.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabindex={-1} id="errors">
      <h2>{cm(props.lang, 'errorsTitle')}</h2>
      <p>{cm(props.lang, 'fixFields')}</p>
      <ul>
        {entries.map(([name, message]) => (
          <li>
            <a href={`#${fieldId(name)}`}>{props.labels?.[name] ? `${props.labels[name]}: ${message}` : message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The element id of a form field (`fees.buyerPercent` → `f-fees-buyerPercent`). */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/**
 * What every control of the console's forms starts with: its label, its hint and its error
 * (said before the control, so a screen reader reads why before what), and the ids the control
 * points its `aria-describedby` at.
 */
function FieldParts(props: { id: string; label: string; hint?: string | undefined; error?: string | undefined; children: (described: string | undefined) => Child }) {
  const { id } = props;
  const described = [props.hint ? `${id}-hint` : null, props.error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
      {props.children(described)}
    </div>
  );
}

/** A labelled input with its hint and its error, the typed value kept. */
export function Field(props: { name: string; label: string; value: string; error?: string | undefined; hint?: string | undefined; type?: 'text' | 'email' | 'number' | 'url' | 'password'; step?: string; readOnly?: boolean; autocomplete?: string; required?: boolean; inputmode?: 'numeric' }) {
  const id = fieldId(props.name);
  return (
    <FieldParts id={id} label={props.label} hint={props.hint} error={props.error}>
      {(described) => (
        <input
          id={id}
          name={props.name}
          type={props.type === 'url' ? 'text' : (props.type ?? 'text')}
          inputmode={props.inputmode ?? (props.type === 'url' ? 'url' : undefined)}
          value={props.value}
          step={props.step}
          readonly={props.readOnly}
          autocomplete={props.autocomplete ?? 'off'}
          required={props.required}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={described}
        />
      )}
    </FieldParts>
  );
}

/** A labelled select of the console's forms, its hint and its error said before it, the chosen value kept. */
export function SelectField(props: { name: string; label: string; value: string; options: readonly { value: string; label: string }[]; error?: string | undefined; hint?: string | undefined; disabled?: boolean }) {
  const id = fieldId(props.name);
  return (
    <FieldParts id={id} label={props.label} hint={props.hint} error={props.error}>
      {(described) => (
        <select id={id} name={props.name} disabled={props.disabled} aria-invalid={props.error ? 'true' : undefined} aria-describedby={described}>
          {props.options.map((o) => (
            <option value={o.value} selected={o.value === props.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldParts>
  );
}

/** A labelled text area of the console's forms (origins one a line, a component's JSON), its error said before it. */
export function TextArea(props: { name: string; label: string; value: string; error?: string | undefined; hint?: string | undefined; rows?: number; readOnly?: boolean; code?: boolean }) {
  const id = fieldId(props.name);
  return (
    <FieldParts id={id} label={props.label} hint={props.hint} error={props.error}>
      {(described) => (
        <textarea id={id} name={props.name} rows={props.rows ?? 4} readonly={props.readOnly} class={props.code ? 'code' : undefined} aria-invalid={props.error ? 'true' : undefined} aria-describedby={described} spellcheck={false}>
          {props.value}
        </textarea>
      )}
    </FieldParts>
  );
}

/** A plain notice of the console (a success, an error), announced to screen readers. */
export function Notice(props: { kind: 'ok' | 'error' | 'info' | 'warn'; children?: Child }) {
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      <p>{props.children ?? null}</p>
    </div>
  );
}

/** A labelled select of partners (`name="partnerId"`), with "all partners" first when `all` names it. */
export function PartnerSelect(props: { id: string; label: string; partners: readonly { id: string; name: string }[]; selected: string | null; all?: string | undefined }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name="partnerId">
        {props.all ? <option value="">{props.all}</option> : null}
        {props.partners.map((p) => (
          <option value={p.id} selected={p.id === props.selected}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}
