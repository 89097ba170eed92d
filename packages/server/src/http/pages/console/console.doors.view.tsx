/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { MAX_DOOR_LABEL } from '../../../domain/admission/admission.doors.js';
import type { ShowDetail } from './console.events.load.js';
import { drm } from './console.doors.messages.js';
import { CsrfField, Field } from './console.view.js';

/** The name of the door form's one field (the flow's `label`). */
export const DOOR_LABEL_FIELD = 'label';

/** The door form as typed and refused (its error by field name), or blank. */
export interface DoorFormState {
  typed: string;
  errors: Record<string, string>;
}

/** The addresses and CSRF tokens of the doors panel's forms: make a door, and revoke each live door (by its id). */
export interface DoorForms {
  make: { action: string; csrf: string };
  revoke: Record<string, { action: string; csrf: string }>;
}

/** A door link just made, shown this once: the token is kept only as its hash. */
export interface NewDoorView {
  label: string;
  link: string;
  expiresAt: number;
}

/** The label of the door form's field, for the error summary. */
export function doorFieldLabels(lang: Lang): Record<string, string> {
  return { [DOOR_LABEL_FIELD]: drm(lang, 'label', { max: MAX_DOOR_LABEL }) };
}

/** What the show's door links check, in words: the rotating codes, or why nothing. */
function checksText(lang: Lang, doors: ShowDetail['doors']): string {
  if (doors.checks === 'rotating') return drm(lang, 'checksRotating', { seconds: doors.rotationSeconds });
  return drm(lang, doors.checks === 'shield_off' ? 'checksShieldOff' : 'checksPartnerQr');
}

/**
 * The selected show's doors: what a door link is and what it checks there, its doors (name, who
 * made it and when, last seen, status) with Revoke on each live one, and the form that makes a
 * link, the typed name kept when refused; a reader sees the list only.
 */
export function DoorsPanel(props: { lang: Lang; show: ShowDetail; timeZone: string; mayAdminister: boolean; forms: DoorForms; state: DoorFormState }) {
  const { lang, show, state } = props;
  const doors = show.doors;
  const when = (at: number) => formatInstant(at, lang, props.timeZone, 'long');
  return (
    <section aria-labelledby="doors">
      <h4 id="doors">{drm(lang, 'doorsTitle')}</h4>
      <p>{drm(lang, 'doorsIntro', { hours: doors.hoursAfterStart })}</p>
      {/* Without rotating codes a door opens and has nothing to check: said as a warning, not in passing. */}
      {doors.checks === 'rotating' ? (
        <p>{checksText(lang, doors)}</p>
      ) : (
        <div class="notice warn">
          <p>{checksText(lang, doors)}</p>
        </div>
      )}
      {doors.list.length === 0 ? (
        <p class="empty">{drm(lang, 'noDoors')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{drm(lang, 'name')}</th>
                <th scope="col">{drm(lang, 'madeBy')}</th>
                <th scope="col">{drm(lang, 'madeAt')}</th>
                <th scope="col">{drm(lang, 'lastSeen')}</th>
                <th scope="col">{drm(lang, 'status')}</th>
                {props.mayAdminister ? <th scope="col">{drm(lang, 'change')}</th> : null}
              </tr>
            </thead>
            <tbody>
              {doors.list.map((d) => {
                const revoke = props.forms.revoke[d.doorId];
                return (
                  <tr>
                    <td>{d.label}</td>
                    <td>{d.createdBy}</td>
                    <td>{when(d.createdAt)}</td>
                    <td>{d.lastSeenAt === null ? <span class="muted">{drm(lang, 'never')}</span> : when(d.lastSeenAt)}</td>
                    <td>{drm(lang, `status_${d.status}`)}</td>
                    {props.mayAdminister ? (
                      <td>
                        {d.status === 'live' && revoke ? (
                          <form method="post" action={revoke.action} class="inline-form">
                            <CsrfField token={revoke.csrf} />
                            <button type="submit" class="danger-outline" aria-label={drm(lang, 'revokeNamed', { label: d.label })}>
                              {drm(lang, 'revoke')}
                            </button>
                          </form>
                        ) : (
                          '–'
                        )}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {props.mayAdminister ? (
        <>
          <h4 id="make-door">{drm(lang, 'makeTitle')}</h4>
          <p>{drm(lang, 'makeIntro')}</p>
          <form method="post" action={props.forms.make.action} class="card inline-form" novalidate>
            <CsrfField token={props.forms.make.csrf} />
            <Field name={DOOR_LABEL_FIELD} label={drm(lang, 'label', { max: MAX_DOOR_LABEL })} hint={drm(lang, 'labelHint')} value={state.typed} error={state.errors[DOOR_LABEL_FIELD]} />
            <button type="submit">{drm(lang, 'make')}</button>
          </form>
        </>
      ) : null}
    </section>
  );
}

/**
 * The door link just made, at the top of the page: shown this once (only its token's hash is
 * kept), in a read-only field with Copy (the pages' script shows the button where the clipboard
 * can be written; without it the field is selected and copied by hand), when it stops working,
 * and a warning that it lets whoever holds it check tickets.
 */
export function NewDoorPanel(props: { lang: Lang; door: NewDoorView; timeZone: string }) {
  const { lang, door } = props;
  return (
    // Focused on load (the pages' script), so a screen reader starts at the link and its warning.
    <section class="notice warn" aria-labelledby="door-made" tabindex={-1} data-autofocus>
      <h2 id="door-made">{drm(lang, 'madeTitle', { label: door.label })}</h2>
      <p>
        <strong>{drm(lang, 'madeWarning')}</strong>
      </p>
      <div class="inline-form">
        <div class="field">
          <label for="door-link">{drm(lang, 'link')}</label>
          <input id="door-link" type="text" value={door.link} readonly autocomplete="off" spellcheck={false} />
        </div>
        <button type="button" class="secondary" hidden data-copy-target="door-link" data-copy-done={drm(lang, 'copied')}>
          {drm(lang, 'copy')}
        </button>
      </div>
      <p>{drm(lang, 'expires', { when: formatInstant(door.expiresAt, lang, props.timeZone, 'long') })}</p>
    </section>
  );
}
