import { z } from '@hono/zod-openapi';
import { normaliseOrigin, ORIGIN_PATTERN } from './lib/origins.js';

/**
 * The service is configured only by environment variables, validated at start. A bad
 * value stops the start with a message naming the variable.
 */
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_PATH: z.string().min(1).default('./data/resale.sqlite'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(5 * 1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(3).default('resale <no-reply@resale.invalid>'),
  SANDBOX_PRIVATE_KEY: z.string().min(16).optional(),
  SANDBOX_PUBLIC_KEY: z.string().min(16).optional(),
  SANDBOX_CHANNELS_KEY: z.string().regex(/^sk_ch_.{10,}$/, 'must start with sk_ch_ and be at least 16 characters').optional(),
  SANDBOX_OWNERSHIP_URL: optionalUrl,
  SANDBOX_LOGIN_URL: optionalUrl,
  SANDBOX_WEBHOOK_URL: optionalUrl,
  SANDBOX_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by base64').optional(),
  SANDBOX_PLATFORM_SECRET: z.string().min(16).optional(),
  SANDBOX_EVENTS_FEED_URL: optionalUrl,
  SANDBOX_CANCELLED_FEED_URL: optionalUrl,
  /** Comma-separated origins whose pages may call the sandbox partner's public-key endpoints (CORS). */
  SANDBOX_ALLOWED_ORIGINS: z
    .string()
    .max(2000)
    .transform((s) => s.split(',').map(normaliseOrigin).filter(Boolean))
    .refine((list) => list.every((o) => ORIGIN_PATTERN.test(o)), 'must be comma-separated origins such as http://localhost:3001')
    .optional(),
});

export type Env = z.output<typeof EnvSchema> & { PUBLIC_BASE_URL: string; SECRET_KEY: string };

/** Thrown when the environment is invalid; `message` names every bad variable. */
export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings count as unset, as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  if (!env.SECRET_KEY) {
    if (env.NODE_ENV === 'production') throw new EnvError('Invalid environment:\n  SECRET_KEY: is required in production (at least 32 characters)');
    throw new EnvError('Invalid environment:\n  SECRET_KEY: is required (npm start sets a development value)');
  }
  const sandbox = [env.SANDBOX_PRIVATE_KEY, env.SANDBOX_PUBLIC_KEY, env.SANDBOX_CHANNELS_KEY];
  if (sandbox.some(Boolean) && !sandbox.every(Boolean)) {
    throw new EnvError('Invalid environment:\n  SANDBOX_PRIVATE_KEY, SANDBOX_PUBLIC_KEY, SANDBOX_CHANNELS_KEY: set all three or none');
  }
  return { ...env, SECRET_KEY: env.SECRET_KEY, PUBLIC_BASE_URL: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '') };
}
