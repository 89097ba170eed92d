import { describe, expect, it } from 'vitest';
import { setup } from '../../../flows/flows.testing.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

describe('console overview', () => {
  it('shows the period’s resales, volume and fees with a chart per day, payouts, webhook failures and the ticket queue', async () => {
    const j = await setup();
    await withOperators(j.t, OPERATOR);
    for (const id of ['s1', 's2']) expect((await j.pay(await j.reserve((await j.list(id)).id))).kind).toBe('paid');
    const other = await j.t.partner('Other');
    const ops = await signIn(j.t, OPERATOR);

    const all = await ops.get('/console');
    expect(all.status).toBe(200);
    // Two resales of €44 paid by buyers (€40 + €4 fee), €12 in fees (€4 + €2 each).
    expect(all.text).toContain('Resales (EUR)');
    expect(all.text).toMatch(/<p class="stat-value">2<\/p>/);
    expect(all.text).toContain('€88.00');
    expect(all.text).toContain('Fees: €12.00');
    expect(all.text).toContain('<figure class="chart"><figcaption>Resales per day (EUR)</figcaption>');
    // 30 bars, one a day; the figures for screen readers too.
    expect(all.text.split('<figcaption>Resales per day')[1]!.split('</svg>')[0]!.match(/<rect /g)).toHaveLength(30);
    expect(all.text).toContain('2 due, 0 overdue (0 failing)');
    expect(all.text).toContain(`href="/console/partners/${other.id}"`);

    const one = await ops.get(`/console?partnerId=${other.id}&days=7`);
    expect(one.text).toContain('No resale in this period.');
    expect(one.text).toContain('<option value="7" selected="">');
    expect(one.text.split('<figure class="chart">')).toHaveLength(1);

    // A period not offered reads as 30 days; a partner someone may not see is not found.
    expect((await ops.get('/console?days=1000')).text).toContain('<option value="30" selected="">');
    await submit(ops, `/console/partners/${other.id}/team`, `/console/partners/${other.id}/team`, { email: 'cy@other.example', role: 'viewer' });
    const cy = await signIn(j.t, 'cy@other.example');
    const mine = await cy.get('/console');
    expect(mine.status).toBe(200);
    expect(mine.text).toContain('No resale in this period.');
    expect(mine.text).not.toContain('All partners');
    expect((await cy.get(`/console?partnerId=${j.p.id}`)).status).toBe(404);
    expect((await new TestBrowser(j.t.app).get('/console')).status).toBe(303);
  });
});
