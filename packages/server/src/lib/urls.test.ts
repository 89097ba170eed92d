import { describe, expect, it } from 'vitest';
import { servicePaths, serviceUrl, withQuery } from './urls.js';

describe('service URLs', () => {
  it('encode every id in the path and write the query in order, leaving out what is unset', () => {
    expect(servicePaths.market('ptr_1', 'tour 2026/€', { showId: 's 1', lang: 'es', listingId: undefined, ticketId: null })).toBe('/market/ptr_1/tour%202026%2F%E2%82%AC?showId=s+1&lang=es');
    expect(servicePaths.checkoutDone('ptr_1', 'bi_1', { lang: 'en' })).toBe('/checkout/ptr_1/bi_1/done?lang=en');
    expect(servicePaths.sellTicket('ptr_1', 't/1?x', { lang: 'en', sync: '1' })).toBe('/sell/ptr_1/ticket/t%2F1%3Fx?lang=en&sync=1');
    expect(servicePaths.sellListingAction('ptr_1', 'lst_1', 'remove')).toBe('/sell/ptr_1/listings/lst_1/remove');
    expect(servicePaths.ticketView('tkt_1.sig-_')).toBe('/tickets/view/tkt_1.sig-_');
    expect(withQuery('/x', new URLSearchParams())).toBe('/x');
    expect(serviceUrl('https://resale.example', servicePaths.sellStart('ptr_1', { lang: 'es' }))).toBe('https://resale.example/sell/ptr_1/start?lang=es');
  });

  it('encode the partner id of the market (the buying-flow entry URL once left it raw)', () => {
    expect(servicePaths.market('ptr/1?a#b', 'tour')).toBe('/market/ptr%2F1%3Fa%23b/tour');
  });
});
