import { z } from '@hono/zod-openapi';

/**
 * The risk request. Required (our decision): `transaction.id`, `transaction.amount`,
 * `transaction.currency`, and at least one of `customer.id` or `customer.email.address`
 * (an evaluation must be about someone). Everything else is optional, and the more is sent
 * the better the evaluation. `transaction.action`: purchase, resale_purchase, listing, payout.
 */
const dateTime = () => z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date-time');
const Address = z.strictObject({ street: z.string().max(200).optional(), street2: z.string().max(200).optional(), city: z.string().max(100).optional(), state: z.string().max(100).optional(), zip: z.string().max(20).optional(), country: z.string().max(60).optional() }).openapi('RiskAddress');

export const RISK_ACTIONS = ['purchase', 'resale_purchase', 'listing', 'payout'] as const;

export const RiskRequestSchema = z
  .strictObject({
    customer: z
      .strictObject({
        id: z.string().min(1).max(200).optional(),
        firstName: z.string().max(100).optional(),
        lastName: z.string().max(100).optional(),
        dateOfBirth: dateTime().optional(),
        address: Address.optional(),
        // Documented as what the validation reads: an instant. Date.parse's other forms stay
        // accepted (partners sent them before), the document asks for ISO 8601.
        createdAt: dateTime().optional().openapi({ format: 'date-time', description: 'When the customer’s account was created (ISO 8601).', example: '2025-11-02T09:15:00Z' }),
        email: z.strictObject({ address: z.email(), verified: z.boolean() }).optional(),
        phone: z.strictObject({ number: z.string().max(32), verified: z.boolean() }).optional(),
      })
      .refine((c) => c.id || c.email, { message: 'needs customer.id or customer.email' }),
    device: z.strictObject({ userId: z.string().max(200).optional(), sessionId: z.string().max(200).optional() }).optional(),
    transaction: z.strictObject({
      id: z.string().min(1).max(200),
      amount: z.number().nonnegative(),
      currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code'),
      createdAt: z.iso.datetime({ offset: true }).optional(),
      action: z.enum(RISK_ACTIONS).optional(),
      cardData: z
        .strictObject({
          bin: z.string().regex(/^\d{6,8}$/, 'must be 6 to 8 digits').optional(),
          last4Digits: z.string().regex(/^\d{4}$/, 'must be 4 digits').optional(),
          cardIdentifier: z.string().max(200).optional(),
          firstName: z.string().max(100).optional(),
          lastName: z.string().max(100).optional(),
          billingAddress: Address.optional(),
        })
        .optional(),
    }),
  })
  .openapi('RiskEvaluationRequest');
export type RiskRequest = z.output<typeof RiskRequestSchema>;

const Level = z.enum(['low', 'medium', 'high']);
const Signal = z.object({ name: z.string(), result: z.string().openapi({ description: 'low, medium or high; manualReview answers "true" or "false".' }) });

export const RiskResponseSchema = z
  .object({
    overall_risk: Level,
    detailed: z.object({
      customer_risk: z.object({ level: Level, signals: z.array(Signal) }),
      transaction_risk: z.object({ level: Level, signals: z.array(Signal) }),
    }),
  })
  .openapi('RiskEvaluation');

export const RiskFeedbackSchema = z
  .strictObject({
    transactionId: z.string().min(1).max(200),
    userId: z.string().min(1).max(254).openapi({ description: 'The user’s id or e-mail on the partner platform.' }),
    result: z.enum(['approved', 'rejected', 'chargeback']),
  })
  .openapi('RiskFeedback');
