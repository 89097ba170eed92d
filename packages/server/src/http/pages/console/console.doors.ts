import type { Lang } from '@resale/shared/lang';
import { doorLabel, MAX_DOOR_LABEL, MAX_DOORS_PER_SHOW } from '../../../domain/admission/admission.doors.js';
import { ApiError } from '../../../lib/errors.js';
import { drm } from './console.doors.messages.js';
import { DOOR_LABEL_FIELD } from './console.doors.view.js';

/**
 * The door form of the console's event page (the handlers are the events section's,
 * console.events.tsx): the name as typed, and a refusal of `createDoor` as the form's error in
 * the person's language. The rules of a name are the domain's (`doorLabel`): checked there
 * once, in the flow's transaction, and only said here.
 */

/** The door's name as typed (cut at 1,000 characters: far past the longest name, so a long one is still kept to be refused). */
export function typedDoorLabel(form: Record<string, string>): string {
  return (form[DOOR_LABEL_FIELD] ?? '').slice(0, 1_000);
}

/**
 * The door form's error and status for a refusal of `createDoor`: 400 on the name (empty, too
 * long), 409 on a name a live door has (the form sent again, after a reload of the page that
 * showed the link) and past the doors a show may have; null for any other refusal (a 404 is
 * the page's). `typed` is the name as typed.
 */
export function doorFormRefusal(lang: Lang, err: unknown, typed: string): { status: 400 | 409; errors: Record<string, string> } | null {
  if (!(err instanceof ApiError)) return null;
  if (err.reason === 'door_name_taken') return { status: 409, errors: { [DOOR_LABEL_FIELD]: drm(lang, 'labelTaken', { label: doorLabel(typed) }) } };
  if (err.status === 409) return { status: 409, errors: { [DOOR_LABEL_FIELD]: drm(lang, 'tooManyDoors', { max: MAX_DOORS_PER_SHOW }) } };
  if (err.status !== 400) return null;
  const code = err.entries.find((e) => e.path === 'label')?.code;
  const message = code === 'missing_field' ? drm(lang, 'labelMissing') : code === 'out_of_range' ? drm(lang, 'labelTooLong', { max: MAX_DOOR_LABEL }) : err.message;
  return { status: 400, errors: { [DOOR_LABEL_FIELD]: message } };
}
