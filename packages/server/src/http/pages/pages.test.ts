import { isLang } from '@resale/shared/lang';
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { createHash } from 'node:crypto';
import { defineMessages, pageLang, t } from '../../lib/i18n.js';
import { noticePage, PAGE_CSP, PAGE_CSS } from './layout.js';

describe('i18n', () => {
  it('translates the shared strings and fills placeholders', () => {
    expect(t('en', 'notFoundTitle')).toBe('Page not found');
    expect(t('es', 'notFoundTitle')).toBe('Página no encontrada');
    expect(t('es', 'tooManyText', { minutes: 5 })).toBe('Espera 5 min y vuelve a intentarlo.');
  });

  it('defineMessages builds a module dictionary (unknown placeholders stay as written)', () => {
    const m = defineMessages({ hi: 'Hi {name}, {missing}' }, { hi: 'Hola {name}, {missing}' });
    expect(m('es', 'hi', { name: '<Ana>' })).toBe('Hola <Ana>, {missing}');
    expect(m('en', 'hi')).toBe('Hi {name}, {missing}');
  });

  it('picks ?lang=, then the fallback, then en', async () => {
    const app = new Hono();
    app.get('/', (c) => c.text(pageLang(c, c.req.query('fallback'))));
    const lang = async (q: string) => (await app.request(`/?${q}`)).text();
    expect(await lang('lang=es')).toBe('es');
    expect(await lang('lang=fr&fallback=es')).toBe('es');
    expect(await lang('fallback=de')).toBe('en');
    expect(await lang('')).toBe('en');
    expect(isLang('es')).toBe(true);
    expect(isLang('ES')).toBe(false);
  });
});

describe('layout', () => {
  it('renders a valid, accessible, escaped page with the page headers', async () => {
    const app = new Hono();
    app.get('/', (c) => noticePage(c, { lang: 'es', status: 410, title: 'Caducado <b>', text: 'Texto & más', link: { href: '/x?a=1&b=2', label: 'Volver' } }));
    const res = await app.request('/');
    expect(res.status).toBe(410);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(PAGE_CSS).digest('base64')}'`);
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"\/>/);
    expect(html).toContain('<title>Caducado &lt;b&gt; · Reventa oficial</title>');
    expect(html).toContain('<a class="skip" href="#main">Saltar al contenido</a>');
    expect(html).toContain('<main id="main"><h1>Caducado &lt;b&gt;</h1><p>Texto &amp; más</p>');
    expect(html).toContain('<a class="button" href="/x?a=1&amp;b=2">Volver</a>');
    expect(html).toContain(`<style>${PAGE_CSS}</style>`);
    expect(html.match(/<main/g)).toHaveLength(1);
  });
});
