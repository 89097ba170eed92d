import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS, MAX_ROTATION_GRACE_SECONDS, publicSettings, ROTATABLE_KINDS, type PartnerRow } from './partners.service.js';
import { settingsPatchSchema, settingsSchema } from './partners.settings.js';

/** The `{partnerId}` path parameter of operator routes. */
export const PartnerIdParam = z.object({
  partnerId: z.string().openapi({ param: { name: 'partnerId', in: 'path' }, example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

/**
 * The settings as the operator reads them: every setting, and `platformSecretSet` in place of
 * the write-only `platformSecret`. One object schema of its own: extending the strict
 * `PartnerSettings` came out as `allOf` of two closed objects, which no answer could satisfy.
 */
export const PartnerSettingsViewSchema = z
  .strictObject({
    ...settingsSchema.shape,
    platformSecretSet: z.boolean().openapi({ description: 'Whether a platform secret is configured (it is never shown).', example: true }),
  })
  .openapi('PartnerSettingsView');

export const PartnerSchema = z
  .object({
    id: z.string().openapi({ example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    name: z.string().openapi({ example: 'Acme Tickets' }),
    settings: PartnerSettingsViewSchema,
    createdAt: z.string().openapi({ example: '2026-01-01T10:00:00.000Z' }),
    updatedAt: z.string().openapi({ example: '2026-01-01T10:00:00.000Z' }),
  })
  .openapi('Partner');

export const PartnerCreateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Acme Tickets' }),
    settings: settingsPatchSchema.optional(),
  })
  .openapi('PartnerCreate');

export const PartnerUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    settings: settingsPatchSchema.optional(),
  })
  .openapi('PartnerUpdate');

export const PartnerCreatedSchema = z
  .object({
    partner: PartnerSchema,
    keys: z.object({
      private: z.string().openapi({ example: 'sk_3N9x…', description: 'Server-side key. Shown once.' }),
      public: z.string().openapi({ example: 'pk_7Qw2…', description: 'Browser-safe key. Shown once.' }),
      channels: z.string().openapi({ example: 'sk_ch_5Tr1…', description: 'Channels group key. Shown once.' }),
    }),
    webhookSecret: z.string().openapi({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'Standard Webhooks signing secret. Shown once.' }),
  })
  .openapi('PartnerCreated');

export const RotateSchema = z
  .strictObject({
    kind: z.enum(ROTATABLE_KINDS).openapi({ example: 'private' }),
    graceSeconds: z.number().int().min(0).max(MAX_ROTATION_GRACE_SECONDS).default(0).openapi({
      example: 3600,
      description: 'How long the previous key keeps working, so deployments can roll over (for `webhookSecret`: keeps signing beside the new one). 0 revokes it at once.',
    }),
  })
  .openapi('KeyRotation');

/** Body of `POST /admin/v1/partners/{partnerId}/webhookSecret/rotate` (optional: a bare POST takes the default grace). */
export const WebhookSecretRotateSchema = z
  .strictObject({
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_GRACE_SECONDS)
      .optional()
      .openapi({
        example: 86_400,
        description: `How long the previous secret keeps signing beside the new one, in seconds (at most ${MAX_ROTATION_GRACE_SECONDS}, 7 days). Absent: ${DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS} (24 hours). 0 stops it at once.`,
      }),
  })
  .openapi('WebhookSecretRotation');

/** Answer of a webhook secret rotation: the new secret (shown once) and the end of the grace. */
export const WebhookSecretRotatedSchema = z
  .object({
    webhookSecret: z.string().openapi({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The new Standard Webhooks signing secret. Shown only in this answer.' }),
    previousValidUntil: z.string().nullable().openapi({
      example: '2026-03-02T12:00:00.000Z',
      description: 'Until when the previous secret also signs every webhook (a second `v1,` signature in `webhook-signature`); null when it stopped at once.',
    }),
  })
  .openapi('WebhookSecretRotated');

export const RotatedSchema = z
  .object({
    kind: z.enum(ROTATABLE_KINDS),
    secret: z.string().openapi({ description: 'The new key or secret. Shown once.' }),
    previousValidUntil: z.string().nullable().openapi({ description: 'Until when the previous key still works; null when revoked at once.' }),
  })
  .openapi('KeyRotated');

export function partnerToApi(p: PartnerRow): z.output<typeof PartnerSchema> {
  return { id: p.id, name: p.name, settings: publicSettings(p), createdAt: toIso(p.createdAt), updatedAt: toIso(p.updatedAt) };
}
