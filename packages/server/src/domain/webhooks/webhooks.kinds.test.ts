import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from '../../lib/paths.js';
import { settingsPatchSchema } from '../partners/partners.settings.js';
import { WEBHOOK_ACTIONS, WEBHOOK_KINDS } from './webhooks.kinds.js';

/** The guide a partner's developer reads (docs/webhooks.md). */
const GUIDE = join(SERVER_ROOT, '../../docs/webhooks.md');

/** The header of the guide's table of kinds. */
const TABLE_HEADER = '| Action | Sent when |';

/** The rows of the guide's table of kinds, as `[action, description]`. */
function documentedKinds(markdown: string): [string, string][] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(TABLE_HEADER);
  expect(start, `docs/webhooks.md has a table headed ${TABLE_HEADER}`).toBeGreaterThanOrEqual(0);
  const rows: [string, string][] = [];
  // The header, the |---| line, then rows until the first line that is not a row.
  for (const line of lines.slice(start + 2)) {
    const row = /^\| `([^`]+)` \| (.*) \|$/.exec(line);
    if (!row) {
      expect(line.startsWith('|'), `a row of the table of kinds reads | \`action\` | description |: ${line}`).toBe(false);
      break;
    }
    rows.push([row[1]!, row[2]!]);
  }
  return rows;
}

describe('the webhook kinds', () => {
  it('are defined once each, with an action of the form family.verb', () => {
    expect(new Set(WEBHOOK_ACTIONS).size).toBe(WEBHOOK_KINDS.length);
    for (const { action } of WEBHOOK_KINDS) expect(action).toMatch(/^[a-zA-Z]+\.[a-zA-Z.]+$/);
  });

  it('have a description that fits in a row of a Markdown table', () => {
    for (const { action, description } of WEBHOOK_KINDS) expect(description, action).toMatch(/^[^|\n]+$/);
  });

  it('are listed in the table of docs/webhooks.md, in order, with their descriptions', () => {
    // On a failure, the expected rows are the ones to write in the guide.
    expect(documentedKinds(readFileSync(GUIDE, 'utf8'))).toEqual(WEBHOOK_KINDS.map(({ action, description }) => [action, description]));
  });

  it('are the actions a partner may subscribe to', () => {
    expect(settingsPatchSchema.safeParse({ webhookEvents: [...WEBHOOK_ACTIONS] }).success).toBe(true);
    expect(settingsPatchSchema.safeParse({ webhookEvents: ['ticket.unknown'] }).success).toBe(false);
  });
});
