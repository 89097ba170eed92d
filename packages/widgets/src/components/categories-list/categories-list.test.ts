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
