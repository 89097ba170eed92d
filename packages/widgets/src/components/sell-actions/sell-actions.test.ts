import { afterEach, describe, expect, it, vi } from 'vitest';
import { $, mount, shadow, text } from '../../internal/test-utils.js';
import type { SellCallToAction, SellEntry } from '../../internal/types.js';

const sell = (over: Partial<SellCallToAction> = {}): SellCallToAction => ({ key: 'SELL', text: 'Sell', url: 'https://resale.example/sell/ticket/t1?lang=en', enabled: true, ...over });

afterEach(() => document.body.replaceChildren());

describe('<resale-sell-actions>', () => {
  it('shows the localised status and one link per call to action, in order', async () => {
    const entry: SellEntry = {
      status: 'FOR_SALE',
      ticketId: 't1',
      callToActions: [sell({ key: 'EDIT', text: 'Edit' }), sell({ key: 'P2P', text: 'Share', url: 'https://resale.example/p2p/x' })],
    };
    const el = await mount('resale-sell-actions', { entry });
    expect(text($(el, '[part="status"]'))).toBe('On sale');
    expect($(el, '[part="status"]').getAttribute('data-status')).toBe('FOR_SALE');
    const links = [...shadow(el).querySelectorAll('a')];
    expect(links.map((a) => text(a))).toEqual(['Edit', 'Share']);
    expect(links[1]!.getAttribute('part')).toBe('cta cta-P2P');
  });

  it('labels every status in Spanish', async () => {
    const labels: string[] = [];
    for (const status of ['SELLABLE', 'NOT_SELLABLE', 'FOR_SALE', 'SOLD', 'MIXED'] as const) {
      const el = await mount('resale-sell-actions', { entry: { status, orderId: 'o1', callToActions: [] }, lang: 'es' });
      labels.push(text($(el, '[part="status"]')));
    }
    expect(labels).toEqual(['Disponible para revender', 'No disponible para reventa', 'En venta', 'Vendida', 'Varios estados']);
  });

  it('renders no resale action for an empty callToActions', async () => {
    const el = await mount('resale-sell-actions', { entry: { status: 'NOT_SELLABLE', ticketId: 't1', callToActions: [] } });
    expect(shadow(el).querySelector('[part="actions"]')).toBeNull();
    expect(text($(el, '[part="status"]'))).toBe('Not available for resale');
  });

  it('disables a call to action that is not enabled or not http(s)', async () => {
    const el = await mount('resale-sell-actions', {
      entry: { status: 'SELLABLE', ticketId: 't1', callToActions: [sell({ enabled: false }), sell({ key: 'PENDING_PAYOUT_INFO', url: 'javascript:alert(1)' })] },
    });
    expect(shadow(el).querySelector('a')).toBeNull();
    expect(shadow(el).querySelectorAll('button:disabled')).toHaveLength(2);
  });

  it('dispatches resale-cta-click with the key and the order id; cancelable', async () => {
    const el = await mount('resale-sell-actions', { entry: { status: 'SELLABLE', orderId: 'o-9', callToActions: [sell({ key: 'MANAGE', text: 'Manage' })] } });
    const seen = vi.fn((e: Event) => e.preventDefault());
    document.addEventListener('resale-cta-click', seen);
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    $(el, 'a').dispatchEvent(click);
    document.removeEventListener('resale-cta-click', seen);
    expect((seen.mock.calls[0]![0] as CustomEvent).detail).toEqual({ componentClass: 'sellActions', key: 'MANAGE', orderId: 'o-9', url: 'https://resale.example/sell/ticket/t1?lang=en' });
    expect(click.defaultPrevented).toBe(true);
  });

  it('escapes CTA texts and ignores unknown statuses', async () => {
    const el = await mount('resale-sell-actions', { entry: { status: 'SOLD', ticketId: 't', callToActions: [sell({ text: '<img src=x onerror=alert(1)>' })] } });
    expect(shadow(el).querySelector('img')).toBeNull();
    const odd = await mount('resale-sell-actions', { entry: { status: 'HACKED' as never, ticketId: 't', callToActions: [sell()] } });
    expect(shadow(odd).querySelector('[part="base"]')).toBeNull();
  });

  it('applies call-to-action colours and refuses non-hex', async () => {
    const el = await mount('resale-sell-actions', {
      entry: { status: 'SELLABLE', ticketId: 't', callToActions: [sell({ colors: { background: '#0a0', text: 'url(x)' } })] },
    });
    const a = $(el, 'a');
    expect(a.style.getPropertyValue('--_cta-bg')).toBe('#0a0');
    expect(a.style.getPropertyValue('--_cta-fg')).toBe('');
  });
});
