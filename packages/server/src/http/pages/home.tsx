/** @jsxImportSource hono/jsx */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../context.js';
import { defineMessages, pageLang } from '../../lib/i18n.js';
import { Layout, renderPage } from './layout.js';
import { WIDGETS_GUIDE_PATH } from '../api/docs.widgets.js';

/** Texts of the landing page, in English and Spanish. */
const hm = defineMessages(
  {
    title: 'Official resale for ticketing platforms',
    intro:
      'This service gives a ticketing platform its own official resale market: fans resell tickets under the organiser’s rules, buyers pay safely, and every ticket changes hands once.',
    forFans: 'Buying or selling a ticket? Start from the ticketing site where you bought it: its pages bring you here.',
    forPartners: 'Building an integration?',
    docs: 'Read the API reference',
    widgets: 'Put resale on your pages: the widgets guide',
    openapi: 'OpenAPI document',
  },
  {
    title: 'Reventa oficial para plataformas de venta de entradas',
    intro:
      'Este servicio da a una plataforma de venta de entradas su propio mercado oficial de reventa: los fans revenden entradas con las reglas del organizador, quien compra paga de forma segura y cada entrada cambia de manos una sola vez.',
    forFans: '¿Compras o vendes una entrada? Empieza en la web donde la compraste: sus páginas te traen aquí.',
    forPartners: '¿Estás integrando el servicio?',
    docs: 'Lee la referencia de la API',
    widgets: 'Pon la reventa en tus páginas: la guía de los widgets',
    openapi: 'Documento OpenAPI',
  },
);

/**
 * The service's mark: a ticket with a circular arrow (resale), in the pages' blue. Served as
 * SVG at `/favicon.svg` (the pages' `<link rel="icon">`) and at `/favicon.ico`, which browsers
 * ask for on their own (a page without the link, the API reference): no page shows a 404 in
 * its console.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b4fb3"/>' +
  '<rect x="6" y="10" width="20" height="12" rx="1.5" fill="#fff"/><circle cx="6" cy="16" r="2.6" fill="#0b4fb3"/><circle cx="26" cy="16" r="2.6" fill="#0b4fb3"/>' +
  '<path d="M17.8 14.2a3 3 0 1 0 .4 3.1" fill="none" stroke="#0b4fb3" stroke-width="1.7" stroke-linecap="round"/>' +
  '<path d="M15.9 13.6l2.1.7.5-2.2" fill="none" stroke="#0b4fb3" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/**
 * `GET /`: what the service is, for whoever opens its address (a fan who followed a link, a
 * partner's engineer), with the way to the API reference; and the favicon. In the page's
 * language (`?lang=es`).
 */
export function homeRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const lang = pageLang(c);
    return renderPage(
      c,
      <Layout lang={lang} title={hm(lang, 'title')}>
        <h1>{hm(lang, 'title')}</h1>
        <p>{hm(lang, 'intro')}</p>
        <p>{hm(lang, 'forFans')}</p>
        <div class="card">
          <p>{hm(lang, 'forPartners')}</p>
          <p>
            <a class="button" href="/docs">
              {hm(lang, 'docs')}
            </a>{' '}
            <a href="/v1/openapi.json">{hm(lang, 'openapi')}</a>
          </p>
          <p>
            <a href={WIDGETS_GUIDE_PATH}>{hm(lang, 'widgets')}</a>
          </p>
        </div>
      </Layout>,
    );
  });
  const icon = (c: Context<AppEnv>) =>
    c.body(FAVICON_SVG, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' });
  app.get('/favicon.svg', icon);
  app.get('/favicon.ico', icon);
  return app;
}
