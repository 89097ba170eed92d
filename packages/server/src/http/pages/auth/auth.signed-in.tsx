/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import type { Context } from 'hono';
import type { AppDeps } from '../../../context.js';

import { m } from './auth.messages.js';
import { csrfField, LOGOUT_PATH, type SessionEnv } from './auth.session.js';

/** How a signed-in user is named on the hosted pages: e-mail, else phone, else the platform's id. */
export function whoIs(user: { email: string | null; phone: string | null; externalId: string | null }): string {
  return user.email ?? user.phone ?? user.externalId ?? '';
}

/**
 * "You are signed in as ana@… — Not you? Sign out", for hosted pages where acting as the wrong
 * person matters (the market: buying from your own account, or on a shared computer). The sign-
 * out form comes back to `returnTo` (a path on the service), signed out, and it holds: the
 * partner's seamless sign-in of that same user is not honoured in this browser until someone
 * signs in deliberately (see "Signing out" in auth.session.tsx). Renders nothing without a
 * session of `partnerId`.
 */
export async function SignedInAs(props: { c: Context<SessionEnv, any, any>; deps: Pick<AppDeps, 'db' | 'users'>; partnerId: string; lang: Lang; returnTo: string }) {
  const session = props.c.get('session');
  if (!session || session.partnerId !== props.partnerId) return null;
  const who = whoIs(await props.deps.db.read(async (tx) => await props.deps.users.get(tx, session.partnerId, session.userPk)));
  return (
    <form method="post" action={`${LOGOUT_PATH}?lang=${props.lang}`} class="signed-in">
      {csrfField(props.c, LOGOUT_PATH)}
      <input type="hidden" name="returnTo" value={props.returnTo} />
      {m(props.lang, 'signedInAs', { who })} {m(props.lang, 'notYou')}{' '}
      <button type="submit" class="secondary">
        {m(props.lang, 'signOut')}
      </button>
    </form>
  );
}
