import { cspWith } from '../layout.js';
import { CONSOLE_CSS } from './console.view.js';

/** The console's passkey paths: the account page, adding a passkey, and signing in with one. */
export const PASSKEY_PATHS = {
  /** The person's account: their passkeys (GET). */
  account: '/console/account',
  /** The page that adds a passkey, after a fresh code (GET). */
  add: '/console/account/passkeys/new',
  /** The options of a registration, for the script (POST, JSON). */
  addOptions: '/console/account/passkeys/options',
  /** The answer of a registration (POST). */
  create: '/console/account/passkeys',
  /** One of the person's passkeys: rename or remove (POST, `op`). */
  passkey: (passkeyId: string) => `/console/account/passkeys/${encodeURIComponent(passkeyId)}`,
  /** The options of a sign-in, for the script (POST, JSON). */
  signInOptions: '/console/sign-in/passkey/options',
  /** The answer of a sign-in (POST). */
  signIn: '/console/sign-in/passkey',
} as const;

/**
 * The policy of the pages with a passkey form (the sign-in page, adding a passkey): the
 * console's, plus the service's own script that calls the service (`script-src 'self';
 * connect-src 'self'`); still no inline script.
 */
export const PASSKEY_CSP = cspWith({ styles: [CONSOLE_CSS], scripts: true, fetches: true });
