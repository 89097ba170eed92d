import { z } from '@hono/zod-openapi';
import type { ErrorCode, ErrorEntry, ErrorLocation } from './errors.js';

/**
 * Turns zod issues into error entries naming every offending field.
 * A missing field is `missing_field`, a wrong type `invalid_type`, a value outside an
 * enum `invalid_value`, a malformed string `invalid_format`, a number or length out
 * of bounds `out_of_range`, an unexpected field `unknown_field`.
 */

const MISSING = 'is required';

// One global rule, set once: a missing value says so instead of "expected string, received undefined".
z.config({
  customError: (iss) =>
    iss.input === undefined && (iss.code === 'invalid_type' || iss.code === 'invalid_value' || iss.code === 'invalid_union') ? MISSING : undefined,
});

type Issue = z.core.$ZodIssue;

/**
 * A custom message for a present but wrong value; a missing value still reads
 * "is required" (and gets `missing_field`).
 *
 * @example z.iso.datetime({ error: whenPresent('must be ISO 8601') })
 */
export function whenPresent(message: string) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? MISSING : message);
}

function codeOf(issue: Issue): ErrorCode {
  if (issue.message === MISSING) return 'missing_field';
  switch (issue.code) {
    case 'invalid_type':
      return issue.message === MISSING ? 'missing_field' : 'invalid_type';
    case 'invalid_value':
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return 'invalid_value';
    case 'invalid_format':
      return 'invalid_format';
    case 'too_small':
    case 'too_big':
    case 'not_multiple_of':
      return 'out_of_range';
    case 'unrecognized_keys':
      return 'unknown_field';
    default:
      return 'invalid_value';
  }
}

function messageOf(issue: Issue, path: string): string {
  const field = path === '' ? 'the request' : path;
  if (issue.message === MISSING) return `${field} is required`;
  switch (issue.code) {
    case 'invalid_type':
      return issue.message === MISSING ? `${field} is required` : `${field} must be of type ${issue.expected}`;
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `${field} must hold at least ${issue.minimum} item(s)`
        : issue.origin === 'string' && issue.minimum === 1
          ? `${field} must not be empty`
          : `${field} ${issue.message.startsWith('must') ? issue.message : `is too small (minimum ${issue.minimum})`}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `${field} must hold at most ${issue.maximum} item(s)`
        : `${field} is too large (maximum ${issue.maximum}${issue.origin === 'string' ? ' characters' : ''})`;
    default:
      return issue.message.startsWith('Invalid') ? `${field} is invalid (${issue.message})` : `${field} ${issue.message}`;
  }
}

/** Error entries for a failed parse; `where` says which part of the request was parsed. */
export function issuesToEntries(issues: readonly Issue[], where: ErrorLocation): ErrorEntry[] {
  const entries: ErrorEntry[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...base, key].join('.');
        entries.push({ code: 'unknown_field', message: `${path} is not a known field`, path, in: where });
      }
      continue;
    }
    const path = base.join('.');
    const entry: ErrorEntry = { code: codeOf(issue), message: messageOf(issue, path), in: where };
    if (path !== '') entry.path = path;
    entries.push(entry);
  }
  return entries;
}

/** Maps a Hono validation target to the error location. */
export function locationOf(target: string): ErrorLocation {
  if (target === 'query') return 'query';
  if (target === 'param') return 'path';
  if (target === 'header' || target === 'cookie') return 'header';
  return 'body';
}
