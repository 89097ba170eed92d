/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { CONSOLE_ROLES } from '../../../domain/console/console.model.js';
import { cm } from './console.messages.js';
import type { PartnerItem, PartnerPageModel } from './console.partners.load.js';
import { SETTING_SECTIONS, type SettingField } from './console.settings-form.js';
import type { PreviewModel } from './console.preview.load.js';
import { PreviewView } from './console.preview.view.js';
import { sm } from './console.settings.messages.js';
import { dm } from './console.developers.messages.js';
import { SANDBOX_CARDS } from '../../../domain/payments/payments.provider.js';
import { sectionHref, type PartnerSection } from './console.sections.js';
import type { Child } from 'hono/jsx';
import { ConsoleLayout, CsrfField, ErrorSummary, Field, fieldId, Notice, SelectField, TextArea, type ConsoleBarView } from './console.view.js';
import type { RotatableKind } from '../../../domain/partners/partners.service.js';

/** The console's address of a partner's page. */
export function partnerHref(partnerId: string): string {
  return sectionHref(partnerId);
}

function roleName(lang: Lang, role: string): string {
  return cm(lang, `role_${role}` as 'role_viewer');
}

/** The table of partners a person may open. */
export function PartnerTable(props: { lang: Lang; items: PartnerItem[] }) {
  const { lang } = props;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{cm(lang, 'partnerName')}</th>
            <th scope="col">Id</th>
            <th scope="col">{cm(lang, 'role')}</th>
            <th scope="col">{cm(lang, 'created')}</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((p) => (
            <tr>
              <td>
                <a href={partnerHref(p.id)}>{p.name}</a>
              </td>
              <td>
                <code>{p.id}</code>
              </td>
              <td>{roleName(lang, p.role)}</td>
              <td>{formatInstant(p.createdAt, lang, 'UTC')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The form that creates a partner as sent back: the typed name, its error, and the partners
 * already of that name (`twins`), with the box that creates another one anyway (`again`).
 */
export type PartnerCreateState = { name: string; error?: string | undefined; twins?: readonly { id: string; name: string }[]; again?: boolean };

/** The operators' list of partners: search, the list, and the form that creates one. */
export function PartnersView(props: { lang: Lang; bar: ConsoleBarView; items: PartnerItem[]; q: string; create: PartnerCreateState & { action: string; csrf: string }; otherLangHref: string }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={cm(lang, 'partnersTitle')} current="partners" bar={props.bar} otherLangHref={props.otherLangHref}>
      <h1>{cm(lang, 'partnersTitle')}</h1>
      <ErrorSummary lang={lang} errors={props.create.error ? { name: props.create.error } : {}} labels={{ name: cm(lang, 'partnerName') }} />
      <form method="get" action="/console/partners" class="inline-form" role="search">
        <Field name="q" label={cm(lang, 'search')} value={props.q} />
        <button type="submit" class="secondary">
          {cm(lang, 'searchButton')}
        </button>
      </form>
      {props.items.length === 0 ? <p class="empty">{props.q ? cm(lang, 'noMatch', { q: props.q }) : cm(lang, 'noPartners')}</p> : <PartnerTable lang={lang} items={props.items} />}
      <h2>{cm(lang, 'createPartner')}</h2>
      <form method="post" action={props.create.action} class="card" novalidate>
        <CsrfField token={props.create.csrf} />
        <Field name="name" label={cm(lang, 'partnerName')} value={props.create.name} error={props.create.error} required />
        {props.create.twins?.length ? (
          <div class="field">
            <p>{cm(lang, 'twinsAre')}</p>
            <ul>
              {props.create.twins.map((t) => (
                <li>
                  <a href={partnerHref(t.id)}>{t.name}</a> <code>{t.id}</code>
                </li>
              ))}
            </ul>
            <label class="check">
              <input type="checkbox" id={fieldId('again')} name="again" value="yes" checked={props.create.again === true} />
              {cm(lang, 'createAgain', { name: props.create.name })}
            </label>
          </div>
        ) : null}
        <button type="submit">{cm(lang, 'create')}</button>
      </form>
    </ConsoleLayout>
  );
}

/** Secrets shown once (a new partner's keys, a rotated key), never stored in the clear. */
export function SecretsOnceView(props: { lang: Lang; bar: ConsoleBarView; title: string; text: string; secrets: { label: string; value: string }[]; back: { href: string; label: string } }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={props.title} bar={props.bar}>
      <h1>{props.title}</h1>
      <Notice kind="warn">{props.text}</Notice>
      {props.secrets.map((s) => (
        <div class="field">
          <p>
            <strong>{s.label}</strong>
          </p>
          <code class="secret">{s.value}</code>
        </div>
      ))}
      <p class="actions">
        <a class="button" href={props.back.href}>
          {props.back.label}
        </a>
      </p>
    </ConsoleLayout>
  );
}

/** The state of the partner page's forms: what was typed and refused, or what was saved. */
export interface PartnerPageState {
  values?: Record<string, string>;
  /** The settings being typed (a preview, a refused form): the preview draws them over the stored ones. */
  typed?: Record<string, string>;
  errors?: Record<string, string>;
  origins?: string;
  originsError?: string;
  invite?: { email: string; role: string; errors: Record<string, string> };
  /** The key rotation form as it was sent (refused). */
  rotation?: { kind: string; graceHours: string };
  notice?: string;
}

/** Each rotatable kind's name in the console's messages, in the order the form offers them. */
export const KEY_LABELS = { public: 'publicKey', private: 'privateKey', channels: 'channelsKey', webhookSecret: 'webhookSecret' } as const satisfies Record<RotatableKind, string>;

/** A partner's pages' frame: its name, id and the person's role, the tabs of its sections, a notice, every error of the form. */
export function PartnerFrame(props: { lang: Lang; bar: ConsoleBarView; model: Pick<PartnerPageModel, 'partner' | 'role'>; sections: readonly PartnerSection[]; current: PartnerSection['id']; notice?: string | undefined; errors?: Record<string, string>; labels?: Record<string, string>; otherLangHref: string; head?: Child; children?: Child }) {
  const { lang, model } = props;
  const here = props.sections.find((s) => s.id === props.current)!;
  return (
    <ConsoleLayout lang={lang} title={`${here.label[lang]} · ${model.partner.name}`} current={props.bar.operator ? 'partners' : 'home'} bar={props.bar} otherLangHref={props.otherLangHref} head={props.head}>
      <h1>{model.partner.name}</h1>
      <p class="muted">
        <code>{model.partner.id}</code> · {roleName(lang, model.role)}
      </p>
      <nav class="tabs" aria-label={model.partner.name}>
        {props.sections.map((s) => (
          <a href={sectionHref(model.partner.id, s)} aria-current={s.id === props.current ? 'page' : undefined}>
            {s.label[lang]}
          </a>
        ))}
      </nav>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      <ErrorSummary lang={lang} errors={props.errors ?? {}} labels={props.labels ?? {}} />
      {props.children ?? null}
    </ConsoleLayout>
  );
}

/** One field of the settings form, drawn as its kind asks (see console.settings-form.ts). */
function SettingInput(props: { lang: Lang; field: SettingField; value: string; error: string | undefined; readOnly: boolean; secretSet: boolean }) {
  const { lang, field, value, error, readOnly } = props;
  const label = field.label[lang];
  switch (field.kind) {
    case 'secret':
      return readOnly ? (
        <div class="field">
          <p>
            <strong>{label}</strong>
          </p>
          <p class="muted">{sm(lang, props.secretSet ? 'secretSet' : 'secretNotSet')}</p>
        </div>
      ) : (
        <Field name={field.name} label={label} type="password" autocomplete="new-password" value="" error={error} hint={sm(lang, props.secretSet ? 'secretSet' : 'secretNotSet')} />
      );
    case 'json':
      return <TextArea name={field.name} label={label} value={value} error={error} hint={sm(lang, 'jsonHint')} rows={10} readOnly={readOnly} code />;
    case 'choice':
      return <SelectField name={field.name} label={label} value={value} error={error} disabled={readOnly} options={(field.options ?? []).map((o) => ({ value: o.value, label: o.label[lang] }))} />;
    default:
      return <Field name={field.name} label={label} value={value} error={error} readOnly={readOnly} {...(field.kind === 'int' || field.kind === 'number' || field.kind === 'optionalInt' ? { inputmode: 'numeric' as const } : {})} />;
  }
}

/**
 * The partner's settings: one form of sections, each field read-only unless this person may
 * change it, and the preview of the brand and the buy banner beside them (live as they type,
 * see `data-live-preview` in page-script.ts; "Preview without saving" without script).
 */
export function SettingsView(props: { lang: Lang; model: PartnerPageModel; state: PartnerPageState; preview: PreviewModel; action: string; csrf: string }) {
  const { lang, model, state } = props;
  const values = state.values ?? model.values;
  const errors = state.errors ?? {};
  const canEditSomething = model.editable.size > 0;
  const secretSet = model.partner.platformSecretSealed !== null;
  return (
    <>
      <h2 id="settings">{cm(lang, 'settingsTitle')}</h2>
      {canEditSomething ? null : <p class="muted">{cm(lang, 'readOnly')}</p>}
      <form method="post" action={props.action} novalidate data-live-preview={canEditSomething ? '' : undefined}>
        <CsrfField token={props.csrf} />
        {SETTING_SECTIONS.map((section) => (
          <fieldset id={`section-${section.id}`}>
            <legend>{section.title[lang]}</legend>
            <div class={section.id === 'components' ? undefined : 'grid'}>
              {section.fields.map((field) => (
                <SettingInput lang={lang} field={field} value={values[field.name] ?? ''} error={errors[field.name]} readOnly={!model.editable.has(field.name)} secretSet={secretSet} />
              ))}
            </div>
          </fieldset>
        ))}
        {/* Beside the branding and the components it draws, before the buttons that save them. */}
        <PreviewView lang={lang} model={props.preview} />
        {canEditSomething ? (
          <p class="actions">
            <button type="submit">{cm(lang, 'save')}</button>
            <button type="submit" name="op" value="preview" class="secondary">
              {sm(lang, 'previewAction')}
            </button>
          </p>
        ) : null}
      </form>
    </>
  );
}

/** The labels of the settings form's fields (for the error summary). */
export function settingLabels(lang: Lang): Record<string, string> {
  return Object.fromEntries(SETTING_SECTIONS.flatMap((s) => s.fields.map((f) => [f.name, f.label[lang]])));
}

/** What developers change: allowed origins, and the keys (each rotation after a fresh code). */
export function DevelopersView(props: { lang: Lang; model: PartnerPageModel; state: PartnerPageState; base: string; csrf: { origins: string; rotate: string; reset: string } }) {
  const { lang, model, state } = props;
  return (
    <>
      <h2 id="origins">{cm(lang, 'originsTitle')}</h2>
      <p>{cm(lang, 'originsIntro')}</p>
      <form method="post" action={`${props.base}/origins`} class="card" novalidate>
        <CsrfField token={props.csrf.origins} />
        <TextArea name="allowedOrigins" label={cm(lang, 'origins')} value={state.origins ?? model.origins} error={state.originsError} readOnly={!model.mayDevelop} />
        {model.mayDevelop ? <button type="submit">{cm(lang, 'saveOrigins')}</button> : null}
      </form>

      {model.mayDevelop ? (
        <>
          <h2 id="keys">{cm(lang, 'keysTitle')}</h2>
          <p>{cm(lang, 'keysIntro')}</p>
          <form method="post" action={`${props.base}/keys/rotate`} class="card inline-form" novalidate>
            <CsrfField token={props.csrf.rotate} />
            {Object.entries(model.keyVersions ?? {}).map(([kind, version]) => (
              <input type="hidden" name={`version-${kind}`} value={version} />
            ))}
            <SelectField name="kind" label={cm(lang, 'keyKind')} value={state.rotation?.kind ?? 'public'} options={Object.entries(KEY_LABELS).map(([value, label]) => ({ value, label: cm(lang, label) }))} error={state.errors?.kind} />
            <Field name="graceHours" label={cm(lang, 'grace')} value={state.rotation?.graceHours ?? '24'} inputmode="numeric" error={state.errors?.graceHours} />
            <button type="submit">{cm(lang, 'rotate')}</button>
          </form>
          <p class="hint">{cm(lang, 'needsStepUp')}</p>
        </>
      ) : null}
      <SandboxPanel lang={lang} model={model} state={state} action={`${props.base}/sandbox/reset`} csrf={props.csrf.reset} />
    </>
  );
}

/** The sandbox provider's test cards, in the order a developer tries them, with what each does (SANDBOX_CARDS). */
const TEST_CARDS = [
  { number: SANDBOX_CARDS.success, outcome: 'card_success' },
  { number: SANDBOX_CARDS.declined, outcome: 'card_declined' },
  { number: SANDBOX_CARDS.verification, outcome: 'card_verification' },
] as const;

/** A card number as printed on cards: groups of four. */
const grouped = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

/**
 * Testing: the payment provider's test cards (the sandbox provider's own, or a word on the
 * hosted provider's), and for the sandbox partner a reset of its market (developers only).
 */
function SandboxPanel(props: { lang: Lang; model: PartnerPageModel; state: PartnerPageState; action: string; csrf: string }) {
  const { lang, model, state } = props;
  const sandboxProvider = model.paymentProvider === 'sandbox';
  return (
    <section aria-labelledby="testing">
      <h2 id="testing">{dm(lang, 'sandboxTitle')}</h2>
      {sandboxProvider ? (
        <>
          <p>{dm(lang, 'testCardsIntro')}</p>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{dm(lang, 'card')}</th>
                  <th scope="col">{dm(lang, 'outcome')}</th>
                </tr>
              </thead>
              <tbody>
                {TEST_CARDS.map((card) => (
                  <tr>
                    <td>
                      <code class="card-number">{grouped(card.number)}</code>
                    </td>
                    <td>{dm(lang, card.outcome)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="hint">{dm(lang, 'otherCards')}</p>
        </>
      ) : (
        <p>{dm(lang, 'hostedIntro', { provider: model.paymentProvider === 'stripe' ? 'Stripe' : model.paymentProvider })}</p>
      )}
      {model.sandbox && model.mayDevelop ? (
        <form method="post" action={props.action} class="card" novalidate>
          <h3 id="reset">{dm(lang, 'resetTitle')}</h3>
          <p>{dm(lang, 'resetIntro')}</p>
          <CsrfField token={props.csrf} />
          <div class="field">
            {state.errors?.confirm ? (
              <p class="field-error" id={`${fieldId('confirm')}-error`}>
                {state.errors.confirm}
              </p>
            ) : null}
            <label class="check">
              <input type="checkbox" id={fieldId('confirm')} name="confirm" value="yes" aria-invalid={state.errors?.confirm ? 'true' : undefined} aria-describedby={state.errors?.confirm ? `${fieldId('confirm')}-error` : undefined} />
              {dm(lang, 'resetConfirm')}
            </label>
          </div>
          <button type="submit" class="danger-outline">
            {dm(lang, 'resetButton')}
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** Who has access to the partner; partner admins and operators invite, change roles and remove. */
export function TeamView(props: { lang: Lang; model: PartnerPageModel; state: PartnerPageState; base: string; csrf: { invite: string; member: (membershipId: string) => string } }) {
  const { lang, model, state } = props;
  return (
    <>
      <h2 id="team">{cm(lang, 'teamTitle')}</h2>
      <p>{cm(lang, 'teamIntro', { name: model.partner.name })}</p>
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{cm(lang, 'email')}</th>
              <th scope="col">{cm(lang, 'role')}</th>
              <th scope="col">{cm(lang, 'lastSignIn')}</th>
              {model.mayAdminister ? <th scope="col">{cm(lang, 'changeRole')}</th> : null}
            </tr>
          </thead>
          <tbody>
            {model.team.map((member) => (
              <tr>
                <td>{member.email}</td>
                <td>{roleName(lang, member.role)}</td>
                <td>{member.lastSignInAt === null ? cm(lang, 'never') : formatInstant(member.lastSignInAt, lang, 'UTC')}</td>
                {model.mayAdminister ? (
                  <td>
                    <form method="post" action={`${props.base}/team/${encodeURIComponent(member.membershipId)}`} class="inline-form">
                      <CsrfField token={props.csrf.member(member.membershipId)} />
                      <label class="visually-hidden" for={`role-${member.membershipId}`}>
                        {cm(lang, 'roleOf', { email: member.email })}
                      </label>
                      <select id={`role-${member.membershipId}`} name="role">
                        {CONSOLE_ROLES.map((r) => (
                          <option value={r} selected={r === member.role}>
                            {roleName(lang, r)}
                          </option>
                        ))}
                      </select>
                      <button type="submit" name="op" value="role" class="secondary">
                        {cm(lang, 'changeRole')}
                      </button>
                      <button type="submit" name="op" value="remove" class="danger-outline">
                        {cm(lang, 'remove')}
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {model.mayAdminister ? (
        <form method="post" action={`${props.base}/team`} class="card" novalidate>
          <CsrfField token={props.csrf.invite} />
          <div class="grid">
            <Field name="email" label={cm(lang, 'email')} type="email" value={state.invite?.email ?? ''} error={state.invite?.errors.email} />
            <div class="field">
              <label for={fieldId('role')}>{cm(lang, 'role')}</label>
              {state.invite?.errors.role ? <p class="field-error">{state.invite.errors.role}</p> : null}
              <select id={fieldId('role')} name="role">
                {CONSOLE_ROLES.map((r) => (
                  <option value={r} selected={r === (state.invite?.role ?? 'developer')}>
                    {roleName(lang, r)}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <button type="submit">{cm(lang, 'invite')}</button>
        </form>
      ) : null}
    </>
  );
}
