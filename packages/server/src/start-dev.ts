/**
 * `npm start`: the service with documented development values, so a newcomer can call the
 * API at once, and the demo partner site ("Demo Tickets", demo/) wired to it as the sandbox
 * partner's platform: ownership endpoint, login page (Login Force), webhooks and CORS origin.
 * Every value can still be overridden by the environment; `DEMO=0` starts the service alone,
 * `DEMO_PORT` moves the demo (default 3001), `DEMO_STATE_PATH` its state file. Never use
 * these values in production: they are public.
 */
import { startDemo } from '@resale/demo/start';
import { start } from './main.js';

export const DEV_DEFAULTS: Record<string, string> = {
  NODE_ENV: 'development',
  PORT: '3000',
  DATABASE_PATH: './data/resale-dev.sqlite',
  OPERATOR_TOKEN: 'dev-operator-token-change-me-0000',
  OPERATOR_EMAILS: 'operator@resale.localhost',
  SECRET_KEY: 'dev-secret-key-for-local-use-only-0000000',
  LOG_LEVEL: 'info',
  SANDBOX_PRIVATE_KEY: 'sk_sandbox_private_dev_key_0000000000',
  SANDBOX_PUBLIC_KEY: 'pk_sandbox_public_dev_key_00000000000',
  SANDBOX_CHANNELS_KEY: 'sk_ch_sandbox_channels_dev_key_0000',
  SANDBOX_WEBHOOK_SECRET: 'whsec_ZGV2LXdlYmhvb2stc2VjcmV0LTAwMDAwMDAwMDA=',
};

/** The sandbox partner's platform settings pointing at the demo on `demoUrl` (only when the demo runs). */
export function demoDefaults(demoUrl: string): Record<string, string> {
  return {
    SANDBOX_OWNERSHIP_URL: `${demoUrl}/platform/ownership`,
    SANDBOX_LOGIN_URL: `${demoUrl}/login`,
    SANDBOX_SITE_URL: `${demoUrl}/`,
    SANDBOX_WEBHOOK_URL: `${demoUrl}/webhooks`,
    SANDBOX_PLATFORM_SECRET: 'dev-platform-secret-for-local-use-0000',
    SANDBOX_ALLOWED_ORIGINS: demoUrl,
  };
}

const fromProcess = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v)) as Record<string, string>;
const withDemo = fromProcess.DEMO !== '0' && fromProcess.DEMO !== 'false';
const demoPort = Number(fromProcess.DEMO_PORT ?? 3001);
const demoUrl = `http://localhost:${demoPort}`;
const env = { ...DEV_DEFAULTS, ...(withDemo ? demoDefaults(demoUrl) : {}), ...fromProcess } as Record<string, string>;

start(env).then(
  async ({ stop, env: parsed }) => {
    let demo: { url: string; stop: () => Promise<void> } | null = null;
    if (withDemo) {
      try {
        demo = await startDemo({
          port: demoPort,
          serviceUrl: parsed.PUBLIC_BASE_URL,
          publicKey: env.SANDBOX_PUBLIC_KEY!,
          privateKey: env.SANDBOX_PRIVATE_KEY!,
          webhookSecret: env.SANDBOX_WEBHOOK_SECRET!,
          platformSecret: env.SANDBOX_PLATFORM_SECRET!,
          statePath: env.DEMO_STATE_PATH ?? './data/demo-state.json',
        });
      } catch (err) {
        // The service keeps running: the demo is a convenience, not part of it.
        console.error(`demo site not started: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    console.log(
      [
        '',
        `resale (development) at ${parsed.PUBLIC_BASE_URL}   API reference: ${parsed.PUBLIC_BASE_URL}/docs`,
        `  private key   ${env.SANDBOX_PRIVATE_KEY}`,
        `  public key    ${env.SANDBOX_PUBLIC_KEY}`,
        `  channels key  ${env.SANDBOX_CHANNELS_KEY}`,
        `  operator      Authorization: Bearer ${env.OPERATOR_TOKEN}`,
        `  console       ${parsed.PUBLIC_BASE_URL}/console   (sign in as ${env.OPERATOR_EMAILS?.split(',')[0] ?? 'an address of OPERATOR_EMAILS'}; the code arrives in the mailbox)`,
        ...(env.SMTP_URL ? [] : [`  mailbox       ${parsed.PUBLIC_BASE_URL}/dev/mailbox   (e-mails and SMS are kept here while SMTP_URL is unset)`]),
        `  try: curl -H 'Authorization: ${env.SANDBOX_PRIVATE_KEY}' ${parsed.PUBLIC_BASE_URL}/v1/events/${demo ? 'demo-gala' : 'demo-tour'}`,
        ...(demo
          ? [
              '',
              `demo partner site "Demo Tickets" at ${demo.url}`,
              `  events ${demo.url}/   my tickets ${demo.url}/my-tickets   webhooks ${demo.url}/webhooks   sign in ${demo.url}/login`,
              `  try: sign in as Ana, open My tickets and sell a ticket; sign out (which signs you out of the resale pages too), sign in as Ben, open the event and buy it with card 4242 4242 4242 4242`,
            ]
          : []),
        '',
      ].join('\n'),
    );
    const shutdown = () =>
      void (demo?.stop() ?? Promise.resolve())
        .then(() => stop())
        .then(() => process.exit(0));
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
