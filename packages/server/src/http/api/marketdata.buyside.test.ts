import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { isPrimaryScarce, PRIMARY_SCARCE_PERCENTAGE } from '../../domain/marketdata/marketdata.service.js';

/** A partner whose buyBanner is configured but switched off: only a (nearly) sold-out primary shows it. */
const BANNER = {
  buyBanner: {
    visible: false,
    title: { en: 'Sold out? Not quite.', es: '¿Agotado? No del todo.' },
    description: { en: 'Official resale from fans.', es: 'Reventa oficial entre fans.' },
    ctaText: { en: 'See resale', es: 'Ver reventa' },
    colors: { background: '#112233', text: '#fafafa' },
  },
  buyButton: { visible: true, ctaText: { en: 'Resale', es: 'Reventa' }, colors: { background: '#000000', text: '#ffffff' } },
};

async function setup(buyAccessLayer: unknown = BANNER) {
  const t = createTestApp();
  const p = await t.partner('Acme Tickets', { buyAccessLayer } as Parameters<typeof t.partner>[1]);
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('f1')] });
  const inventory = (body: Record<string, unknown>) => t.request('PUT', '/v1/marketdata/events/tour/inventory?showId=show-1', { key: p.keys.private, body });
  const banner = async (lang = 'en') => {
    const res = await t.request('GET', `/v1/wrapper/accesslayer?${new URLSearchParams({ type: 'buy', eventId: 'tour', showId: 'show-1', lang })}`, { key: p.keys.public });
    expect(res.status).toBe(200);
    return res.body.data.find((c: { class: string }) => c.class === 'buyBanner')?.buyBanner as { visible: boolean; callToAction: { enabled: boolean } } | undefined;
  };
  const page = async (query = '?showId=show-1') => (await t.app.request(`/market/${p.id}/tour${query}`)).text();
  return { t, p, inventory, banner, page };
}

describe('inventory feeds the buy side', () => {
  it('decides "sold out or nearly" from soldOut and soldPercentage', () => {
    expect(PRIMARY_SCARCE_PERCENTAGE).toBe(90);
    expect(isPrimaryScarce(null)).toBe(false);
    expect(isPrimaryScarce({ soldOut: null, soldPercentage: null })).toBe(false);
    expect(isPrimaryScarce({ soldOut: true, soldPercentage: null })).toBe(true);
    expect(isPrimaryScarce({ soldOut: false, soldPercentage: 89.9 })).toBe(false);
    expect(isPrimaryScarce({ soldOut: false, soldPercentage: 90 })).toBe(true);
  });

  it('shows a configured buyBanner while the primary is sold out, seen by the very next request', async () => {
    const { t, inventory, banner } = await setup();
    expect((await banner())!.visible).toBe(false);
    // Cached now; the inventory write must be seen at once, without moving the clock.
    expect((await inventory({ soldPercentage: 89.9 })).status).toBe(200);
    expect((await banner())!.visible).toBe(false);
    await inventory({ soldPercentage: 90 });
    expect((await banner())!.visible).toBe(true);
    await inventory({ soldPercentage: 10 });
    expect((await banner())!.visible).toBe(false);
    await inventory({ soldOut: true });
    const shown = (await banner('es'))!;
    expect(shown.visible).toBe(true);
    // Nothing for sale yet: shown, with its call to action disabled.
    expect(shown.callToAction.enabled).toBe(false);
    // Resale closed (the show has started): the banner follows its setting again.
    t.clock.set('2026-05-01T19:00:01Z');
    expect((await banner())!.visible).toBe(false);
  });

  it('adds no banner the partner did not configure', async () => {
    const { inventory, banner } = await setup({ buyButton: BANNER.buyButton });
    await inventory({ soldOut: true });
    expect(await banner()).toBeUndefined();
  });

  it('says on the market page when resale is the official way to get tickets', async () => {
    const { inventory, page } = await setup();
    expect(await page()).not.toContain('primary sale');
    await inventory({ soldPercentage: 95 });
    expect(await page()).toContain('Almost sold out in the primary sale — resale is the official way to get tickets.');
    await inventory({ soldOut: true });
    expect(await page()).toContain('Sold out in the primary sale — resale is the official way to get tickets.');
    expect(await page('?showId=show-1&lang=es')).toContain('Agotado en la venta oficial: la reventa es la forma oficial de conseguir entradas.');
    // Another show of the event is not concerned.
    expect(await page('?showId=show-2')).not.toContain('primary sale');
  });
});
