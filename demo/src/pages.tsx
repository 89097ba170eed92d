/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { SellAccessLayerData, SellBannerComponent, SellTicketEntry, SoldTicketEntry } from './service-client.js';
import type { DemoEvent, DemoTicket, DemoUser, WebhookDelivery } from './store.js';

/**
 * The demo platform's pages, server-rendered with hono/jsx (every interpolated value is
 * escaped; the only raw output is {@link jsonBlock}, which escapes what could end a script
 * element). Accessible by construction: `lang`, a skip link, landmarks (header, nav, main,
 * footer), headings in order, labelled controls, visible focus, AA colours (demo.css).
 * No inline script or style: the pages run under a strict CSP (see `csp.ts`).
 */

export type NavKey = 'home' | 'my-tickets' | 'webhooks' | 'login' | null;

/** The JSON of a `<script type="application/json">` data block: `<`, `>`, `&` and the JS line separators escaped, so no value can close the element. */
export function jsonBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A show's date as the resale pages write it (@resale/shared/format, as the service writes it: the venue's time
 * zone with its name, en-GB), so a fan reads the same date on this site and on the market;
 * pages.test.ts compares the two.
 */
export function formatDate(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(new Date(iso));
}

export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** The demo's own words for the sell statuses (the widget shows its localised label; this is the no-JS text). */
export const STATUS_TEXT: Record<SellTicketEntry['status'], string> = {
  SELLABLE: 'You can resell this ticket',
  NOT_SELLABLE: 'Resale is not available for this ticket',
  FOR_SALE: 'Listed for resale',
  SOLD: 'Sold through resale',
};

function NavLink(props: { href: string; current: boolean; children: Child }) {
  return (
    <li>
      <a href={props.href} aria-current={props.current ? 'page' : undefined}>
        {props.children}
      </a>
    </li>
  );
}

export function Layout(props: { title: string; user: DemoUser | null; nav: NavKey; head?: Child; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Demo Tickets`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/demo.css" />
        {props.head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">
              Demo Tickets
            </a>
            <nav aria-label="Main">
              <ul>
                <NavLink href="/" current={props.nav === 'home'}>
                  Events
                </NavLink>
                <NavLink href="/my-tickets" current={props.nav === 'my-tickets'}>
                  My tickets
                </NavLink>
                <NavLink href="/webhooks" current={props.nav === 'webhooks'}>
                  Webhooks
                </NavLink>
              </ul>
            </nav>
            <div class="account">
              {props.user ? (
                <form method="post" action="/logout">
                  <span class="who">Signed in as {props.user.name}</span> <button type="submit" class="link">Sign out</button>
                </form>
              ) : (
                <a href="/login" aria-current={props.nav === 'login' ? 'page' : undefined}>
                  Sign in
                </a>
              )}
            </div>
          </div>
        </header>
        <main id="main">{props.children}</main>
        <footer class="site">
          <p>Demo Tickets is a fictional ticketing platform that shows how a partner integrates the resale service. Nothing here is real: no payment is taken.</p>
        </footer>
      </body>
    </html>
  );
}

export function HomePage(props: { user: DemoUser | null; events: readonly DemoEvent[] }) {
  return (
    <Layout title="Events" user={props.user} nav="home">
      <h1>Upcoming events</h1>
      <ul class="cards">
        {props.events.map((e) => (
          <li class="card">
            <h2>
              <a href={`/events/${encodeURIComponent(e.id)}`}>{e.title}</a>
            </h2>
            <p class="meta">
              <time datetime={e.date}>{formatDate(e.date, e.timeZone)}</time> · {e.venue}, {e.city}
            </p>
            <p>{e.description}</p>
          </li>
        ))}
      </ul>
      <section class="card try" aria-labelledby="try-h">
        <h2 id="try-h">Try it in a minute</h2>
        <ol>
          <li>
            <a href="/login?returnTo=%2Fmy-tickets">Sign in</a> as Ana and open My tickets: press Sell on a ticket and set a price.
          </li>
          <li>
            Sign out, sign in as Ben, open the event and buy Ana's ticket from the resale section with the test card 4242 4242 4242 4242. Signing out here signs you out of the
            resale service too, so the same browser will do.
          </li>
          <li>
            Open <a href="/webhooks">Webhooks</a>: the resale arrived signed, and the ticket is now in Ben's tickets.
          </li>
        </ol>
      </section>
    </Layout>
  );
}

export interface EventPageProps {
  user: DemoUser | null;
  event: DemoEvent;
  serviceUrl: string;
  publicKey: string;
  /** The market page of the show, for browsers without JavaScript; null when the service did not answer. */
  fallbackUrl: string | null;
  /** The buy access layer signed for the signed-in fan (Login Trust); null: the widgets fetch it with the public key. */
  components?: unknown[] | null;
}

export function EventPage(props: EventPageProps) {
  const e = props.event;
  return (
    <Layout
      title={e.title}
      user={props.user}
      nav={null}
      head={
        <>
          <script type="module" src={`${props.serviceUrl}/widgets/v1/resale.js`}></script>
          {props.components ? <script type="module" src="/assets/resale-data.js"></script> : null}
        </>
      }
    >
      {props.components ? <script type="application/json" id="resale-buy-components" dangerouslySetInnerHTML={{ __html: jsonBlock(props.components) }}></script> : null}
      <article class="event">
        <h1>{e.title}</h1>
        <p class="meta">
          <time datetime={e.date}>{formatDate(e.date, e.timeZone)}</time> · {e.venue}, {e.address}, {e.city}
        </p>
        <p>{e.description}</p>
        <section aria-labelledby="primary-h" class="card">
          <h2 id="primary-h">Tickets</h2>
          <ul class="options">
            {e.options.map((o) => (
              <li>
                <span class="option-title">{o.title}</span> <span class="hint">{o.description}</span> <span class="price">{formatMoney(o.price, e.currency)}</span>
              </li>
            ))}
          </ul>
          <button type="button" disabled>
            Sold out
          </button>
          <p class="hint">The primary sale is over. Fans resell their tickets below, at prices the organiser allows.</p>
        </section>
        <section aria-labelledby="resale-h" class="card">
          <h2 id="resale-h">Resale</h2>
          <resale-access-layer event-id={e.id} show-id={e.showId} lang="en" public-key={props.publicKey} api-base={props.serviceUrl} data-resale-data={props.components ? 'resale-buy-components' : undefined}>
            {props.fallbackUrl ? (
              <p>
                <a class="button" href={props.fallbackUrl}>
                  See resale tickets
                </a>
              </p>
            ) : (
              <p class="hint">Resale tickets are not available right now.</p>
            )}
          </resale-access-layer>
        </section>
      </article>
    </Layout>
  );
}

export interface MyTicketsProps {
  user: DemoUser;
  serviceUrl: string;
  events: readonly DemoEvent[];
  tickets: readonly DemoTicket[];
  /** The sell access layer's answer; null when the service could not be asked. */
  access: SellAccessLayerData | null;
  /** Each ticket's secure view URL by ticket id (ticketShield); a ticket without one shows no link. */
  viewUrls: Readonly<Record<string, string>>;
}

/** The seat, or for general admission the ticket option's name. */
function seatText(t: DemoTicket, optionTitle: string | undefined): string {
  if (!t.section) return optionTitle ?? 'General admission';
  return [t.section, t.row && `Row ${t.row}`, t.seat && `Seat ${t.seat}`].filter(Boolean).join(' · ');
}

function Ctas(props: { ctas: readonly { text: string; url: string; enabled: boolean }[] }) {
  return (
    <ul class="ctas">
      {props.ctas.map((cta) =>
        cta.enabled && /^https?:\/\//.test(cta.url) ? (
          <li>
            <a class="button" href={cta.url}>
              {cta.text}
            </a>
          </li>
        ) : (
          <li>
            <span class="button disabled" aria-disabled="true">
              {cta.text}
            </span>
          </li>
        ),
      )}
    </ul>
  );
}

function SellBanner(props: { banner: SellBannerComponent; index: number }) {
  const b = props.banner.sellBanner;
  const id = `resale-banner-${props.index}`;
  return (
    <>
      <script type="application/json" id={id} dangerouslySetInnerHTML={{ __html: jsonBlock(props.banner) }}></script>
      <resale-sell-banner data-resale-data={id}>
        <div class="card">
          <p class="banner-title">{b.title}</p>
          <p>{b.description}</p>
          <Ctas ctas={[b.callToAction]} />
        </div>
      </resale-sell-banner>
    </>
  );
}

function TicketItem(props: { ticket: DemoTicket; optionTitle: string | undefined; entry: SellTicketEntry | undefined; accessFailed: boolean; viewUrl: string | undefined }) {
  const t = props.ticket;
  const entry = props.entry;
  const dataId = `resale-entry-${t.ticketId}`;
  return (
    <li class="ticket card">
      <h3>{seatText(t, props.optionTitle)}</h3>
      <dl>
        <div>
          <dt>Ticket</dt>
          <dd>{t.ticketId}</dd>
        </div>
        <div>
          <dt>Order</dt>
          <dd>{t.orderId}</dd>
        </div>
        <div>
          <dt>Access code</dt>
          <dd>{t.code}</dd>
        </div>
        <div>
          <dt>Paid</dt>
          <dd>{formatMoney(t.paidPrice, t.currency)}</dd>
        </div>
        {t.resale ? (
          <div>
            <dt>Bought</dt>
            <dd>through resale</dd>
          </div>
        ) : null}
      </dl>
      {props.viewUrl && /^https?:\/\//.test(props.viewUrl) ? (
        <p class="ticket-view">
          <a class="button secondary" href={props.viewUrl}>
            View ticket<span class="visually-hidden"> {seatText(t, props.optionTitle)}</span>
          </a>{' '}
          <span class="hint">The QR code appears there before the show.</span>
        </p>
      ) : null}
      {entry ? (
        <>
          <p class="status" data-status={entry.status}>
            Resale: {STATUS_TEXT[entry.status]}
          </p>
          <script type="application/json" id={dataId} dangerouslySetInnerHTML={{ __html: jsonBlock(entry) }}></script>
          <resale-sell-actions data-resale-data={dataId} lang="en">
            <Ctas ctas={entry.callToActions} />
          </resale-sell-actions>
        </>
      ) : (
        <p class="status">{props.accessFailed ? 'Resale status is unavailable right now. Try again in a moment.' : 'No resale actions for this ticket.'}</p>
      )}
    </li>
  );
}

export function MyTicketsPage(props: MyTicketsProps) {
  const entries = new Map((props.access?.tickets ?? []).map((e) => [e.ticketId, e]));
  const banners = (props.access?.components ?? []).filter((c) => c.class === 'sellBanner' && c.sellBanner.visible);
  const sold: SoldTicketEntry[] = props.access?.soldTickets ?? [];
  const byEvent = props.events.map((e) => ({ event: e, tickets: props.tickets.filter((t) => t.eventId === e.id) })).filter((g) => g.tickets.length > 0);
  const titleOf = (eventId: string) => props.events.find((e) => e.id === eventId)?.title ?? eventId;
  return (
    <Layout
      title="My tickets"
      user={props.user}
      nav="my-tickets"
      head={
        <>
          <script type="module" src={`${props.serviceUrl}/widgets/v1/resale.js`}></script>
          <script type="module" src="/assets/resale-data.js"></script>
        </>
      }
    >
      <h1>My tickets</h1>
      {banners.map((b, i) => (
        <SellBanner banner={b} index={i} />
      ))}
      {props.access === null ? (
        <p class="notice" role="status">
          The resale service did not answer, so resale actions are not shown. Your tickets are still valid.
        </p>
      ) : null}
      {byEvent.length === 0 ? <p>You have no tickets.</p> : null}
      {byEvent.map((g) => (
        <section aria-labelledby={`ev-${g.event.id}`}>
          <h2 id={`ev-${g.event.id}`}>
            <a href={`/events/${encodeURIComponent(g.event.id)}`}>{g.event.title}</a>
          </h2>
          <p class="meta">
            <time datetime={g.event.date}>{formatDate(g.event.date, g.event.timeZone)}</time> · {g.event.venue}, {g.event.city}
          </p>
          <ul class="tickets">
            {g.tickets.map((t) => (
              <TicketItem ticket={t} optionTitle={g.event.options.find((o) => o.id === t.ticketOptionId)?.title} entry={entries.get(t.ticketId)} accessFailed={props.access === null} viewUrl={props.viewUrls[t.ticketId]} />
            ))}
          </ul>
        </section>
      ))}
      {sold.length > 0 ? (
        <section aria-labelledby="sold-h">
          <h2 id="sold-h">Sold through resale</h2>
          <table>
            <caption class="visually-hidden">Tickets you sold through resale</caption>
            <thead>
              <tr>
                <th scope="col">Ticket</th>
                <th scope="col">Event</th>
                <th scope="col">Price</th>
                <th scope="col">Your payout</th>
              </tr>
            </thead>
            <tbody>
              {sold.map((s) => (
                <tr>
                  <td>{s.ticketId}</td>
                  <td>{titleOf(s.eventId)}</td>
                  <td>{formatMoney(s.price, s.currency)}</td>
                  <td>{formatMoney(s.payout, s.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </Layout>
  );
}

export interface LoginPageProps {
  user: DemoUser | null;
  users: readonly DemoUser[];
  /** The checked returnTo to carry through the form ('' when none). */
  returnTo: string;
  /** Where the browser goes after sign-in. */
  target: 'self' | 'service' | 'refused';
  /** The resale service asked who is signing in (`prompt=login`: someone signed out there). */
  prompt?: boolean;
  error?: string;
}

export function LoginPage(props: LoginPageProps) {
  return (
    <Layout title="Sign in" user={props.user} nav="login">
      <h1>Sign in</h1>
      <p class="notice">This is a demo: there are no passwords. Pick one of the fictional users below.</p>
      {props.prompt && props.user ? (
        <p role="status">
          You signed out of the resale service. Choose who is buying: {props.user.name} again, or someone else.
        </p>
      ) : null}
      {props.target === 'service' ? <p>After signing in you go straight back to the resale service, already signed in there too.</p> : null}
      {props.target === 'refused' ? (
        <p class="error" role="alert">
          The return address is neither on Demo Tickets nor on the resale service, so it will not be followed: you will land on the home page.
        </p>
      ) : null}
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action="/login" class="card">
        <input type="hidden" name="returnTo" value={props.returnTo} />
        <fieldset>
          <legend>Sign in as</legend>
          <ul class="users">
            {props.users.map((u) => (
              <li>
                <button type="submit" name="user" value={u.id}>
                  {u.name}
                </button>{' '}
                <span class="hint">{u.email}</span>
              </li>
            ))}
          </ul>
        </fieldset>
      </form>
    </Layout>
  );
}

function prettyBody(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

export function WebhooksPage(props: { user: DemoUser | null; deliveries: readonly WebhookDelivery[] }) {
  return (
    <Layout title="Webhooks" user={props.user} nav="webhooks">
      <h1>Webhooks received</h1>
      <p>
        Every POST the resale service sent to <code>/webhooks</code>, newest first. The signature (Standard Webhooks) is checked on the raw body before anything is done; a resale
        (<code>ticket.update</code>) moves the tickets to the buyer, once per <code>webhook-id</code>.
      </p>
      {props.deliveries.length === 0 ? <p>No webhooks yet. Sell and buy a ticket, then come back.</p> : null}
      <ol class="deliveries">
        {props.deliveries.map((d, i) => (
          <li class="card delivery">
            <h2>{d.type ?? 'unknown type'}</h2>
            <dl>
              <div>
                <dt>Id</dt>
                <dd>
                  <code>{d.id ?? '(no webhook-id)'}</code>
                </dd>
              </div>
              <div>
                <dt>Received</dt>
                <dd>
                  <time datetime={d.receivedAt}>{d.receivedAt}</time>
                </dd>
              </div>
              <div>
                <dt>Signature</dt>
                <dd class={d.verified ? 'ok' : 'bad'}>{d.verified ? 'signature verified' : 'REJECTED'}</dd>
              </div>
              <div>
                <dt>Result</dt>
                <dd>{d.verdict}</dd>
              </div>
            </dl>
            <details>
              <summary>
                Payload<span class="visually-hidden"> of delivery {String(props.deliveries.length - i)}</span>
              </summary>
              <pre>
                <code>{prettyBody(d.body)}</code>
              </pre>
            </details>
          </li>
        ))}
      </ol>
    </Layout>
  );
}

export function NoticePage(props: { user: DemoUser | null; title: string; text: string; link?: { href: string; text: string } }) {
  return (
    <Layout title={props.title} user={props.user} nav={null}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      {props.link ? (
        <p>
          <a href={props.link.href}>{props.link.text}</a>
        </p>
      ) : null}
    </Layout>
  );
}
