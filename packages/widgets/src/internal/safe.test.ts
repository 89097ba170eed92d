import { describe, expect, it } from 'vitest';
import { formatPrice, resolveLang, t, ticketCount } from './i18n.js';
import { pickColors, safeColor, safeUrl } from './safe.js';

describe('safeColor', () => {
  it('accepts #rgb and #rrggbb only', () => {
    expect(['#fff', '#A1b2C3'].map(safeColor)).toEqual(['#fff', '#A1b2C3']);
    expect(['#ffff', '#12345', 'red', 'rgb(0,0,0)', '#fff;background:url(x)', ' #fff', 'var(--x)', 42, null].map(safeColor)).toEqual(Array(9).fill(undefined));
  });

  it('picks per field from the first source with a valid value', () => {
    expect(pickColors({ background: 'bad', text: '#111' }, { background: '#222', text: '#333' })).toEqual({ background: '#222', text: '#111' });
    expect(pickColors(undefined, null)).toEqual({});
  });
});

describe('safeUrl', () => {
  it('keeps http(s) URLs and refuses other schemes', () => {
    expect(safeUrl('https://resale.example/a?b=1')).toBe('https://resale.example/a?b=1');
    expect(safeUrl('http://x.test/')).toBe('http://x.test/');
    // Relative URLs resolve against the page, so they stay on its (http) origin.
    expect(safeUrl('/market?x=1')).toBe(new URL('/market?x=1', document.baseURI).href);
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', '\tjava\nscript:alert(1)', 'data:text/html,x', 'vbscript:x', 'blob:https://x/y', '', '   ', null, 7]) expect(safeUrl(bad)).toBeUndefined();
  });
});

describe('i18n', () => {
  it('resolves en and es, with the page language as fallback', () => {
    expect(resolveLang('es-AR')).toBe('es');
    expect(resolveLang('fr')).toBe('en');
    document.documentElement.lang = 'es';
    expect(resolveLang(undefined)).toBe('es');
    document.documentElement.lang = '';
    expect(resolveLang('')).toBe('en');
  });

  it('counts tickets and formats prices', () => {
    expect(ticketCount('en', 1)).toBe('1 ticket');
    expect(ticketCount('es', 1200)).toBe('1200 entradas'.replace('1200', new Intl.NumberFormat('es').format(1200)));
    expect(formatPrice('en', 50.05, 'USD')).toBe('$50.05');
    expect(formatPrice('en', 50.5, null)).toBe('50.50');
    expect(formatPrice('en', 7, 'NOT-A-CODE')).toBe('7.00');
    expect(t('es', 'listings', { area: 'Pista' })).toBe('Ofertas en Pista');
  });
});
