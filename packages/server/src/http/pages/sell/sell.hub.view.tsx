/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { CsrfInput } from '../auth/auth.session.js';
import { Layout } from '../layout.js';
import type { HubShow, HubTicketItem, OrderView, ShowView } from './sell.hub.load.js';
import { sm } from './sell.messages.js';

/**
 * The views of smart publish and the order flow: stateless, from the view models of
 * sell.hub.load.ts, the page's language, and the forms' actions and CSRF tokens.
 */

function TicketList({ items, lang }: { items: HubTicketItem[]; lang: Lang }) {
  return (
    <ul>
      {items.map((x) => (
        <li>
          {x.optionTitle} · {x.ticketId}{' '}
          {x.link ? <a href={x.link.href}>{sm(lang, x.link.label)}</a> : null}
        </li>
      ))}
    </ul>
  );
}

/** Smart publish with nothing to sell. */
export function NothingToSellPage({ lang }: { lang: Lang }) {
  return (
    <Layout lang={lang} title={sm(lang, 'emptyTitle')}>
      <h1>{sm(lang, 'emptyTitle')}</h1>
      <p>{sm(lang, 'emptyText')}</p>
    </Layout>
  );
}

/** Smart publish with nothing left to sell, only listings to manage. */
export function YourListingsPage({ lang, items }: { lang: Lang; items: HubTicketItem[] }) {
  return (
    <Layout lang={lang} title={sm(lang, 'yourListings')}>
      <h1>{sm(lang, 'yourListings')}</h1>
      <TicketList items={items} lang={lang} />
    </Layout>
  );
}

/** Smart publish with tickets of several shows: the show to sell for. */
export function ChooseShowPage({ lang, shows }: { lang: Lang; shows: HubShow[] }) {
  return (
    <Layout lang={lang} title={sm(lang, 'showsTitle')}>
      <h1>{sm(lang, 'showsTitle')}</h1>
      <ul>
        {shows.map((s) => (
          <li>
            <a href={s.href}>
              {s.eventTitle} · {s.showTitle}
            </a>{' '}
            · {formatInstant(s.startsAt, lang, s.timeZone, 'long')}
          </li>
        ))}
      </ul>
    </Layout>
  );
}

/** The seller's tickets of one show. */
export function ShowPage({ lang, view }: { lang: Lang; view: ShowView }) {
  const title = sm(lang, 'hubTitle', { show: `${view.eventTitle} · ${view.showTitle}` });
  return (
    <Layout lang={lang} title={title}>
      <h1>{title}</h1>
      <TicketList items={view.items} lang={lang} />
    </Layout>
  );
}

/** The order flow: the order's tickets, and one price to list its sellable ones at (`error`: why the last try failed). */
export function OrderPage({ lang, view, action, csrf, error }: { lang: Lang; view: OrderView; action: string; csrf: string; error?: string | undefined }) {
  const title = sm(lang, 'sellOrderTitle', { orderId: view.orderId });
  return (
    <Layout lang={lang} title={title}>
      <h1>{title}</h1>
      <p>
        <strong>{view.eventTitle}</strong> · {view.showTitle}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <TicketList items={view.items} lang={lang} />
      {view.payoutMissing ? (
        <div class="notice warn">
          <p>{sm(lang, view.payoutMissing.stripe ? 'stripeRequired' : 'payoutRequired')}</p>
          <p>
            <a href={view.payoutMissing.href}>{sm(lang, 'payoutStepUpLink')}</a>
          </p>
        </div>
      ) : null}
      {view.currency !== null ? (
        <form method="post" action={action} class="card" novalidate>
          <CsrfInput token={csrf} />
          <label for="price">{sm(lang, 'price', { currency: view.currency })}</label>
          <input type="text" id="price" name="price" inputmode="decimal" required />
          <button type="submit">{sm(lang, 'publish')}</button>
        </form>
      ) : null}
    </Layout>
  );
}
