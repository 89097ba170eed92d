import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { buyIntentions } from '../../../domain/intentions/intentions.table.js';
import { listings } from '../../../domain/listings/listings.table.js';
import { setup as journeySetup } from '../../../flows/flows.testing.js';
import { csrfFor, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

describe('console developers: the sandbox’s test cards and its market reset', () => {
  it('shows the test cards, and resets the sandbox’s market: live listings end, their checkouts end, sold ones stay; audited', async () => {
    const j = await journeySetup({ partnerName: 'sandbox' });
    const { t, p } = j;
    await withOperators(t, OPERATOR);
    const forSale = await j.list('s1');
    const held = await j.list('s2');
    const hold = await j.reserve(held.id);
    const sold = await j.list('s3');
    expect((await j.pay(await j.reserve(sold.id))).kind).toBe('paid');

    const ops = await signIn(t, OPERATOR);
    const page = `/console/partners/${p.id}/developers`;
    const opened = await ops.get(page);
    expect(opened.text).toContain('4242 4242 4242 4242');
    expect(opened.text).toContain('4000 0000 0000 0002');
    expect(opened.text).toContain('4000 0025 0000 3155');
    expect(opened.text).toContain('Reset the sandbox’s market');

    const unconfirmed = await submit(ops, page, `/console/partners/${p.id}/sandbox/reset`, {});
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain('Tick the box to confirm the reset.');
    expect((await t.db.select().from(listings).where(eq(listings.id, forSale.id)))[0]!.state).toBe('ACTIVE');

    const reset = await submit(ops, page, `/console/partners/${p.id}/sandbox/reset`, { confirm: 'yes' });
    expect(reset.status).toBe(303);
    expect((await ops.get(reset.location!)).text).toContain('The sandbox’s market is reset: 2 listings ended.');
    const states = new Map((await t.db.select().from(listings)).map((l) => [l.id, [l.state, l.endReason]]));
    expect(states.get(forSale.id)).toEqual(['TERMINATED', 'sandbox_reset']);
    expect(states.get(held.id)).toEqual(['TERMINATED', 'sandbox_reset']);
    expect(states.get(sold.id)![0]).toBe('SOLD');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, hold.id)))[0]!.state).toBe('CANCELLED');
    const entries = (await t.db.select().from(auditLog)).filter((e) => e.action === 'sandbox.reset');
    expect(entries).toMatchObject([{ actorEmail: OPERATOR, partnerId: p.id, after: { listingsEnded: 2 } }]);
  });

  it('offers no reset for a partner that is not the sandbox, and answers its post as an unknown page', async () => {
    const j = await journeySetup();
    const { t, p } = j;
    await withOperators(t, OPERATOR);
    const listed = await j.list('s1');
    const ops = await signIn(t, OPERATOR);
    const opened = await ops.get(`/console/partners/${p.id}/developers`);
    expect(opened.text).toContain('4242 4242 4242 4242');
    expect(opened.text).not.toContain('Reset the market');
    const action = `/console/partners/${p.id}/sandbox/reset`;
    const refused = await ops.post(action, { _csrf: await csrfFor(t, ops, action), confirm: 'yes' });
    expect(refused.status).toBe(404);
    expect((await t.db.select().from(listings).where(eq(listings.id, listed.id)))[0]!.state).toBe('ACTIVE');
    expect((await t.db.select().from(auditLog)).filter((e) => e.action === 'sandbox.reset')).toEqual([]);
  });
});
