/**
 * `npm start`: the service with documented development values, so a newcomer can call the
 * API at once. Every value can still be overridden by the environment. Never use these
 * values in production: they are public.
 */
import { start } from './main.js';

export const DEV_DEFAULTS: Record<string, string> = {
  NODE_ENV: 'development',
  PORT: '3000',
  DATABASE_PATH: './data/resale-dev.sqlite',
  OPERATOR_TOKEN: 'dev-operator-token-change-me-0000',
  SECRET_KEY: 'dev-secret-key-for-local-use-only-0000000',
  LOG_LEVEL: 'info',
  SANDBOX_PRIVATE_KEY: 'sk_sandbox_private_dev_key_0000000000',
  SANDBOX_PUBLIC_KEY: 'pk_sandbox_public_dev_key_00000000000',
  SANDBOX_CHANNELS_KEY: 'sk_ch_sandbox_channels_dev_key_0000',
  SANDBOX_WEBHOOK_SECRET: 'whsec_ZGV2LXdlYmhvb2stc2VjcmV0LTAwMDAwMDAwMDA=',
};

const env = { ...DEV_DEFAULTS, ...Object.fromEntries(Object.entries(process.env).filter(([, v]) => v)) } as Record<string, string>;

start(env).then(
  ({ stop, env: parsed }) => {
    console.log(
      [
        '',
        `resale (development) at ${parsed.PUBLIC_BASE_URL}   API reference: ${parsed.PUBLIC_BASE_URL}/docs`,
        `  private key   ${env.SANDBOX_PRIVATE_KEY}`,
        `  public key    ${env.SANDBOX_PUBLIC_KEY}`,
        `  channels key  ${env.SANDBOX_CHANNELS_KEY}`,
        `  operator      Authorization: Bearer ${env.OPERATOR_TOKEN}`,
        ...(env.SMTP_URL ? [] : [`  mailbox       ${parsed.PUBLIC_BASE_URL}/dev/mailbox   (e-mails and SMS are kept here while SMTP_URL is unset)`]),
        `  try: curl -H 'Authorization: ${env.SANDBOX_PRIVATE_KEY}' ${parsed.PUBLIC_BASE_URL}/v1/events/demo-tour`,
        '',
      ].join('\n'),
    );
    const shutdown = () => void stop().then(() => process.exit(0));
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
