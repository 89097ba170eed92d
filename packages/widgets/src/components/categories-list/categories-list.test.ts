import { afterEach, describe, expect, it, vi } from 'vitest';
import { $, cta, mount, shadow, text } from '../../internal/test-utils.js';
import type { CategoriesListComponent, Category } from '../../internal/types.js';

const category = (over: Partial<Category> = {}): Category => ({
  ticketOptionId: 'opt-field',
  quantityForSale: 12,
  floorPrice: 50.05,
  visible: true,
  callToAction: cta({ text: 'See tickets', url: 'https://resale.example/market?ticketOptionId=opt-field' }),
  ...over,
});
const list = (categories: Category[], visible = true): CategoriesListComponent => ({ type: 'list', class: 'categoriesList', categoriesList: { visible, categories } });

afterEach(() => document.body.replaceChildren());

describe('<resale-categories-list>', () => {
  it('renders categories in the given order with quantity and floor price', async () => {
    const el = await mount('resale-categories-list', { component: list([category(), category({ ticketOptionId: 'opt-vip', quantityForSale: 1, floorPrice: 120 })]) });
    const items = shadow(el).querySelectorAll('[part="category"]');
    expect([...items].map((i) => i.getAttribute('data-ticket-option-id'))).toEqual(['opt-field', 'opt-vip']);
    expect(text(items[0]!.querySelector('[part="quantity"]'))).toBe('12 tickets');
    expect(text(items[0]!.querySelector('[part="price"]'))).toBe('from 50.05');
    expect(text(items[1]!.querySelector('[part="quantity"]'))).toBe('1 ticket');
  });

  it('formats with the currency when known, and localises', async () => {
    const el = await mount('resale-categories-list', { component: list([category()]), currency: 'EUR', lang: 'es' });
    const price = text($(el, '[part="price"]'));
    expect(price).toMatch(/^desde 50,05\s?€$/);
    expect(text($(el, '[part="quantity"]'))).toBe('12 entradas');
  });

  it('names a category by the partner label, else its title, else its ticket option id', async () => {
    const el = await mount('resale-categories-list', {
      component: list([category({ title: 'General field' }), category({ ticketOptionId: 'opt-b', title: 'Balcony' }), category({ ticketOptionId: 'opt-c' })]),
      labels: { 'opt-field': 'Field' },
    });
    const names = [...shadow(el).querySelectorAll('[part="name"]')].map((n) => text(n));
    expect(names).toEqual(['Field', 'Balcony', 'opt-c']);
  });

  it('formats with the category currency before the attribute', async () => {
    const el = await mount('resale-categories-list', { component: list([category({ currency: 'GBP' })]), currency: 'EUR', lang: 'en' });
    expect(text($(el, '[part="price"]'))).toMatch(/£50\.05/);
  });

  it('says none for sale at 0 and shows the call to action disabled as the server says', async () => {
    const el = await mount('resale-categories-list', { component: list([category({ quantityForSale: 0, floorPrice: 0, callToAction: cta({ enabled: false }) })]) });
    expect(text($(el, '[part="quantity"]'))).toBe('none for sale');
    expect(shadow(el).querySelector('[part="price"]')).toBeNull();
    expect(($(el, 'button[part~="cta"]') as HTMLButtonElement).disabled).toBe(true);
  });

  it('leaves out hidden categories, and renders nothing for a hidden list', async () => {
    const el = await mount('resale-categories-list', { component: list([category({ visible: false }), category({ ticketOptionId: 'opt-b' })]) });
    expect(shadow(el).querySelectorAll('[part="category"]')).toHaveLength(1);
    const hidden = await mount('resale-categories-list', { component: list([category()], false) });
    expect(shadow(hidden).querySelector('ul')).toBeNull();
  });

  it('applies call-to-action colours before category colours, and refuses non-hex', async () => {
    const el = await mount('resale-categories-list', {
      component: list([
        category({ colors: { background: '#111111', text: '#eeeeee' }, callToAction: cta({ colors: { background: '#222', text: 'white' } }) }),
        category({ ticketOptionId: 'b', colors: { background: '#333333', text: '#fff' } }),
      ]),
    });
    const [a, b] = [...shadow(el).querySelectorAll<HTMLElement>('a[part~="cta"]')];
    expect(a!.style.getPropertyValue('--_cta-bg')).toBe('#222');
    expect(a!.style.getPropertyValue('--_cta-fg')).toBe('#eeeeee');
    expect(b!.style.getPropertyValue('--_cta-bg')).toBe('#333333');
  });

  it('sends the ticket option with resale-cta-click', async () => {
    const el = await mount('resale-categories-list', { component: list([category()]) });
    const seen = vi.fn((e: Event) => e.preventDefault());
    el.addEventListener('resale-cta-click', seen);
    $(el, 'a').click();
    expect((seen.mock.calls[0]![0] as CustomEvent).detail).toEqual({ componentClass: 'categoriesList', ticketOptionId: 'opt-field', url: 'https://resale.example/market?ticketOptionId=opt-field&returnTo=http%3A%2F%2Flocalhost%3A3000%2F' });
  });

  it('sends fans to each category with the way back to this page (return-to)', async () => {
    const el = await mount('resale-categories-list', { component: list([category(), category({ ticketOptionId: 'b' })]) }, { 'return-to': 'https://tickets.example/e/1' });
    const links = [...shadow(el).querySelectorAll('a[part~="cta"]')].map((a) => new URL(a.getAttribute('href')!).searchParams.get('returnTo'));
    expect(links).toEqual(['https://tickets.example/e/1', 'https://tickets.example/e/1']);
  });

  it('escapes markup in labels and texts', async () => {
    const el = await mount('resale-categories-list', { component: list([category({ ticketOptionId: '<img src=x onerror=alert(1)>' })]) });
    expect(shadow(el).querySelector('img')).toBeNull();
    expect(text($(el, '[part="name"]'))).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('<resale-categories-list> with tickets held in checkouts', () => {
  const NOW = Date.parse('2026-06-01T18:30:00Z');
  const at = (ms: number) => new Date(ms).toISOString();
  const hhmm = (ms: number, locale = 'en-GB') => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(ms);
  const soldOut = (over: Partial<Category> = {}, ctaOver: Parameters<typeof cta>[0] = {}) =>
    category({ quantityForSale: 0, floorPrice: 0, callToAction: cta({ text: 'See tickets', url: 'https://resale.example/market?ticketOptionId=opt-field', enabled: false, ...ctaOver }), ...over });

  afterEach(() => vi.useRealTimers());

  it('says how many are reserved, by whom, and when they may be back, instead of "none for sale"', async () => {
    vi.useFakeTimers({ now: NOW });
    const backAt = NOW + 9 * 60_000;
    const el = await mount('resale-categories-list', {
      component: list([
        soldOut({}, { reserved: { tickets: 1, backAt: at(backAt), whose: 'others' } }),
        soldOut({ ticketOptionId: 'opt-b' }, { reserved: { tickets: 4, backAt: at(backAt), whose: 'any' } }),
        soldOut({ ticketOptionId: 'opt-c' }, { reserved: { tickets: 2, backAt: at(NOW - 1), whose: 'others' } }),
        soldOut({ ticketOptionId: 'opt-d' }),
      ]),
    });
    const items = [...shadow(el).querySelectorAll('[part="category"]')];
    expect(items.map((i) => text(i.querySelector('[part="quantity"]')))).toEqual([
      `1 ticket reserved by another fan — may be back at ${hhmm(backAt)}`,
      `4 tickets reserved in checkouts — may be back at ${hhmm(backAt)}`,
      '2 tickets reserved by other fans — may be back any moment',
      'none for sale',
    ]);
    expect(items.map((i) => i.hasAttribute('data-reserved'))).toEqual([true, true, true, false]);
    expect(items.every((i) => i.hasAttribute('data-empty'))).toBe(true);
  });

  it('says it in Spanish', async () => {
    vi.useFakeTimers({ now: NOW });
    const backAt = NOW + 9 * 60_000;
    const el = await mount('resale-categories-list', {
      component: list([soldOut({}, { reserved: { tickets: 1, backAt: at(backAt), whose: 'others' } }), soldOut({ ticketOptionId: 'opt-b' }, { reserved: { tickets: 3, backAt: at(backAt), whose: 'any' } })]),
      lang: 'es',
    });
    expect([...shadow(el).querySelectorAll('[part="quantity"]')].map((q) => text(q))).toEqual([
      `1 entrada reservada por otro fan — puede volver a la venta a las ${hhmm(backAt, 'es-ES')}`,
      `3 entradas reservadas en compras en curso — pueden volver a la venta a las ${hhmm(backAt, 'es-ES')}`,
    ]);
  });

  it('keeps the count of a category with tickets for sale, reserved or not', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-categories-list', { component: list([category({ callToAction: cta({ reserved: { tickets: 2, backAt: at(NOW + 60_000), whose: 'others' } }) })]) });
    expect(text($(el, '[part="quantity"]'))).toBe('12 tickets');
    expect($(el, '[part="category"]').hasAttribute('data-reserved')).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('shows the fan their hold of a category in its item, with its ticket option on the click', async () => {
    vi.useFakeTimers({ now: NOW });
    const yourHold = { tickets: 2, expiresAt: at(NOW + 3 * 60_000), url: 'https://resale.example/checkout/ptr_1/int_1', releaseUrl: 'javascript:alert(1)' };
    const el = await mount(
      'resale-categories-list',
      {
        component: list([
          soldOut({}, { yourHold: { ...yourHold, releaseUrl: 'https://resale.example/market/ptr_1/tour?showId=s1' } }),
          soldOut({ ticketOptionId: 'opt-b' }, { yourHold }),
        ]),
      },
      { 'return-to': 'https://tickets.example/e/1' },
    );
    const [first, second] = [...shadow(el).querySelectorAll('[part="category"]')];
    expect(text(first!.querySelector('[part="your-hold-title"]'))).toBe('You have 2 tickets reserved (3:00 left)');
    expect(text(first!.querySelector('[part="quantity"]'))).toBe('none for sale');
    // A release URL that is not http(s): no block, and no such URL in any link.
    expect(second!.querySelector('[part="your-hold"]')).toBeNull();
    expect([...shadow(el).querySelectorAll('[href]')].every((a) => a.getAttribute('href')!.startsWith('https://resale.example/'))).toBe(true);
    const seen = vi.fn((e: Event) => e.preventDefault());
    el.addEventListener('resale-cta-click', seen);
    (first!.querySelector('[part="your-hold-continue"]') as HTMLElement).click();
    expect((seen.mock.calls[0]![0] as CustomEvent).detail).toEqual({ componentClass: 'categoriesList', ticketOptionId: 'opt-field', hold: 'continue', url: 'https://resale.example/checkout/ptr_1/int_1?returnTo=https%3A%2F%2Ftickets.example%2Fe%2F1' });
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    await el.updateComplete;
    expect(text(first!.querySelector('[part="your-hold-title"]'))).toBe('Your reservation has ended');
    expect(first!.querySelector('a[part^="your-hold"]')).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('renders nothing new without either field', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-categories-list', { component: list([category(), soldOut({ ticketOptionId: 'opt-b' })]) });
    expect(shadow(el).querySelector('[part^="your-hold"], [data-reserved]')).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });
});
