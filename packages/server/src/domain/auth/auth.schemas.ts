import { z } from '@hono/zod-openapi';
import { USER_METHODS } from './auth.service.js';

/** Query of GET /v1/auth/oneTimeToken. */
export const OneTimeTokenQuerySchema = z.object({
  user: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(254)
    .openapi({
      param: { name: 'user', in: 'query' },
      example: 'ana@example.com',
      description:
        'The user signed in on the partner platform: an e-mail, a phone in international format, or the partner’s user id (see method). ' +
        'An unknown user is created.',
    }),
  method: z.enum(USER_METHODS).optional().openapi({
    param: { name: 'method', in: 'query' },
    example: 'email',
    description:
      'How to read user: email, phone (international format, +34600111222) or id (the partner’s user id). ' +
      'Without it: an e-mail when user contains @, a phone when it starts with +, otherwise the partner’s user id.',
  }),
});

/** The token: 43 base62 characters (256 random bits). */
export const OneTimeTokenSchema = z.string().openapi({
  example: '4Qm8ZkT1vWc9sPq2XyL7nB3hJ6dF0aRgE5uK1oN8iVt',
  description:
    'A single-use token. Append it to a service URL as ?oneTimeToken=<token> (for Login Force: to returnTo) and send the user there at once. ' +
    'It works once, for the partner’s oneTimeTokenTtlSeconds (default 300 s).',
});

/** Query of GET /v1/auth/signOutUrl. */
export const SignOutUrlQuerySchema = z.object({
  returnTo: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .openapi({
      param: { name: 'returnTo', in: 'query' },
      example: 'https://tickets.example/',
      description: 'Where the browser lands once signed out of the service: a page of the partner’s site (any http(s) address its server chooses).',
    }),
});

/** The partner's sign-out URL on the service. */
export const SignOutUrlSchema = z.string().openapi({
  example: 'https://resale.example/auth/sign-out?p=ptr_01jd…&returnTo=https%3A%2F%2Ftickets.example%2F&returnToTag=…',
  description: 'Send the browser here (a redirect, a top-level navigation) when the user signs out of the partner’s site. It may be kept and reused.',
});
