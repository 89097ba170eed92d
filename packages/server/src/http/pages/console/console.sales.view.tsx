/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { currencyDigits } from '../../../lib/money.js';
import { SALE_KINDS, type ListingItem, type OrderItem, type OrderPageModel, type PaymentView, type SalesPageModel, type SalesQuery, type ShowLabel, type TimelineEntry } from './console.sales.load.js';
import { slm } from './console.sales.messages.js';
import { CsrfField, Field, Notice } from './console.view.js';

/**
 * The sales section's content (the partner frame is around it): the list of resales, holds or
 * listings with its search, and an order's page with its timeline and, for operators, the
 * refund. Stateless: the routes compute every URL and token.
 */

const when = (ms: number | null, lang: Lang) => (ms === null ? '–' : formatInstant(ms, lang, 'UTC', 'long'));

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** The console's address of a partner's sales (with a list's query), or of one order. */
export function salesHref(partnerId: string, query: Partial<SalesQuery> = {}): string {
  const base = `/console/partners/${encodeURIComponent(partnerId)}/sales`;
  const params = new URLSearchParams({ ...(query.kind && query.kind !== 'resales' ? { kind: query.kind } : {}), ...(query.q ? { q: query.q } : {}), ...(query.page && query.page > 1 ? { page: String(query.page) } : {}) }).toString();
  return params ? `${base}?${params}` : base;
}

/** The page of one order (buy intention) of the partner. */
export function orderHref(partnerId: string, intentionId: string): string {
  return `/console/partners/${encodeURIComponent(partnerId)}/sales/${encodeURIComponent(intentionId)}`;
}

/** The webhooks tab's page of one message. */
function messageHref(partnerId: string, messageId: string): string {
  return `/console/partners/${encodeURIComponent(partnerId)}/webhooks/${encodeURIComponent(messageId)}`;
}

function Where(props: { lang: Lang; where: ShowLabel | null }) {
  if (!props.where) return <>–</>;
  return (
    <>
      {props.where.event}
      <br />
      <span class="muted">
        {props.where.show}, {when(props.where.startsAt, props.lang)}
      </span>
    </>
  );
}

function Codes(props: { values: readonly string[] }) {
  if (props.values.length === 0) return <>–</>;
  return (
    <>
      {props.values.map((v, i) => (
        <>
          {i > 0 ? ', ' : ''}
          <code>{v}</code>
        </>
      ))}
    </>
  );
}

function OrdersTable(props: { lang: Lang; partnerId: string; kind: 'resales' | 'holds'; items: OrderItem[] }) {
  const { lang, partnerId } = props;
  const resales = props.kind === 'resales';
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{slm(lang, 'order')}</th>
            <th scope="col">{resales ? slm(lang, 'paidAt') : slm(lang, 'holdUntil')}</th>
            <th scope="col">{slm(lang, 'event')}</th>
            <th scope="col">{slm(lang, 'tickets')}</th>
            <th scope="col">{slm(lang, 'buyer')}</th>
            <th scope="col">{slm(lang, 'sellers')}</th>
            <th scope="col">{slm(lang, 'total')}</th>
            {resales ? <th scope="col">{slm(lang, 'payment')}</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.items.map((o) => (
            <tr>
              <td>
                <a href={orderHref(partnerId, o.id)}>
                  <code>{o.id}</code>
                </a>
              </td>
              <td>{resales ? when(o.paidAt, lang) : when(o.expiresAt, lang)}</td>
              <td>
                <Where lang={lang} where={o.where} />
              </td>
              <td>
                <Codes values={o.tickets} />
              </td>
              <td>{o.buyer ?? '–'}</td>
              <td>{o.sellers.join(', ') || '–'}</td>
              <td class="num">{money(o.totalMinor, o.currency, lang)}</td>
              {resales ? <td>{o.payment ? slm(lang, `pstate_${o.payment}`) : '–'}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ListingsTable(props: { lang: Lang; partnerId: string; items: ListingItem[] }) {
  const { lang, partnerId } = props;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{slm(lang, 'listing')}</th>
            <th scope="col">{slm(lang, 'created')}</th>
            <th scope="col">{slm(lang, 'state')}</th>
            <th scope="col">{slm(lang, 'event')}</th>
            <th scope="col">{slm(lang, 'tickets')}</th>
            <th scope="col">{slm(lang, 'seller')}</th>
            <th scope="col">{slm(lang, 'perTicket')}</th>
            <th scope="col">{slm(lang, 'order')}</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((l) => (
            <tr>
              <td>
                <code>{l.id}</code>
              </td>
              <td>{when(l.createdAt, lang)}</td>
              <td>{slm(lang, `lstate_${l.state}`)}</td>
              <td>
                <Where lang={lang} where={l.where} />
              </td>
              <td>
                <Codes values={l.tickets} />
              </td>
              <td>{l.seller}</td>
              <td class="num">{money(l.unitMinor, l.currency, lang)}</td>
              <td>
                {l.orderId ? (
                  <a href={orderHref(partnerId, l.orderId)}>
                    <code>{l.orderId}</code>
                  </a>
                ) : (
                  slm(lang, 'noOrder')
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The list: the kinds as tabs of their own, the search, a page of rows, links to the pages around it. */
export function SalesView(props: { lang: Lang; partnerId: string; model: SalesPageModel }) {
  const { lang, partnerId, model } = props;
  const { query } = model;
  const rows = query.kind === 'listings' ? model.listings.length : model.orders.length;
  return (
    <>
      <h2 id="sales">{slm(lang, 'salesTitle')}</h2>
      <p>{slm(lang, 'salesIntro')}</p>
      <nav class="actions" aria-label={slm(lang, 'kindsLabel')}>
        {SALE_KINDS.map((kind) => (
          <a href={salesHref(partnerId, { kind, q: query.q })} aria-current={kind === query.kind ? 'page' : undefined}>
            {slm(lang, `kind_${kind}`)}
          </a>
        ))}
      </nav>
      <form method="get" action={salesHref(partnerId)} class="inline-form" role="search" aria-label={slm(lang, 'salesTitle')}>
        {query.kind === 'resales' ? null : <input type="hidden" name="kind" value={query.kind} />}
        <Field name="q" label={slm(lang, 'search')} value={query.q} />
        <button type="submit" class="secondary">
          {slm(lang, 'searchButton')}
        </button>
      </form>
      {rows === 0 ? (
        <p class="empty">{query.q ? slm(lang, 'noMatch', { q: query.q }) : slm(lang, `none_${query.kind}`)}</p>
      ) : query.kind === 'listings' ? (
        <ListingsTable lang={lang} partnerId={partnerId} items={model.listings} />
      ) : (
        <OrdersTable lang={lang} partnerId={partnerId} kind={query.kind} items={model.orders} />
      )}
      {query.page > 1 || model.hasNext ? (
        <nav class="actions" aria-label={slm(lang, 'pageOf', { page: query.page })}>
          {query.page > 1 ? <a href={salesHref(partnerId, { ...query, page: query.page - 1 })}>{slm(lang, 'newer')}</a> : null}
          <span class="muted">{slm(lang, 'pageOf', { page: query.page })}</span>
          {model.hasNext ? <a href={salesHref(partnerId, { ...query, page: query.page + 1 })}>{slm(lang, 'older')}</a> : null}
        </nav>
      ) : null}
    </>
  );
}

/** How a payment was made: the method and the card's last four, as far as known. */
function methodOf(lang: Lang, p: PaymentView): string {
  const method = p.method ?? 'card';
  return p.cardLast4 ? slm(lang, 'methodCard', { method, last4: p.cardLast4 }) : slm(lang, 'method', { method });
}

/** What a timeline entry says. */
function entryText(lang: Lang, e: TimelineEntry): string {
  const amount = (minor: number, currency: string) => money(minor, currency, lang);
  switch (e.kind) {
    case 'listed':
      return slm(lang, 't_listed', { seller: e.seller, quantity: e.quantity, unit: amount(e.unitMinor, e.currency) });
    case 'reserved':
      return e.buyer ? slm(lang, 't_reserved', { buyer: e.buyer, until: when(e.expiresAt, lang) }) : slm(lang, 't_reservedNoBuyer', { until: when(e.expiresAt, lang) });
    case 'attempt': {
      const vars = { state: slm(lang, `pstate_${e.payment.state}`), amount: amount(e.payment.amountMinor, e.payment.currency) };
      return e.payment.failureCode ? slm(lang, 't_attemptCode', { ...vars, code: e.payment.failureCode }) : slm(lang, 't_attempt', vars);
    }
    case 'paid':
      return e.payment
        ? slm(lang, 't_paidWith', { amount: amount(e.totalMinor, e.currency), method: methodOf(lang, e.payment), provider: e.payment.provider, ref: e.payment.providerRef })
        : slm(lang, 't_paid', { amount: amount(e.totalMinor, e.currency) });
    case 'journal': {
      const known = ['sale', 'late_payment', 'refund_due', 'refund_paid', 'payout_delivered', 'provider_fee', 'dispute_withdrawn', 'dispute_reinstated'];
      const vars = { amount: amount(e.amountMinor, e.currency), kind: e.journalKind };
      return known.includes(e.journalKind) ? slm(lang, `t_journal_${e.journalKind}` as 't_journal_sale', vars) : slm(lang, 't_journal_other', vars);
    }
    case 'webhookQueued':
      return slm(lang, 't_webhookQueued', { action: e.action, state: e.state, attempts: e.attempts });
    case 'webhookDelivered':
      return slm(lang, 't_webhookDelivered', { action: e.action });
    case 'payoutScheduled':
      return slm(lang, 't_payoutScheduled', { amount: amount(e.amountMinor, e.currency), seller: e.seller, due: when(e.dueAt, lang) });
    case 'payoutDelivered':
      return e.transferRef ? slm(lang, 't_payoutDeliveredRef', { ref: e.transferRef }) : slm(lang, 't_payoutDelivered');
    case 'payoutCancelled':
      return slm(lang, 't_payoutCancelled');
    case 'refunded':
      return slm(lang, 't_refunded', { amount: amount(e.payment.amountMinor, e.payment.currency) });
    case 'ended': {
      const state = slm(lang, `istate_${e.state}`);
      return e.reason ? slm(lang, 't_endedReason', { state, reason: e.reason }) : slm(lang, 't_ended', { state });
    }
  }
}

/** The record an entry names: a link where the console has a page for it, else its id. */
function EntryRecord(props: { lang: Lang; partnerId: string; entry: TimelineEntry }) {
  const e = props.entry;
  switch (e.kind) {
    case 'webhookQueued':
    case 'webhookDelivered':
      return (
        <a href={messageHref(props.partnerId, e.messageId)}>
          {slm(props.lang, 'message')} <code>{e.messageId}</code>
        </a>
      );
    case 'listed':
      return <code>{e.listingId}</code>;
    case 'attempt':
    case 'refunded':
      return <code>{e.payment.id}</code>;
    case 'paid':
      return e.payment ? <code>{e.payment.id}</code> : <>–</>;
    case 'journal':
      return <code>{e.journalId}</code>;
    case 'payoutScheduled':
    case 'payoutDelivered':
    case 'payoutCancelled':
      return <code>{e.payoutId}</code>;
    default:
      return <>–</>;
  }
}

/** An order: what it is, its tickets, its timeline, and the refund (operators). */
export function OrderView(props: { lang: Lang; partnerId: string; model: OrderPageModel; refund: { action: string; csrf: string }; refusal?: string | undefined }) {
  const { lang, partnerId, model } = props;
  const { order } = model;
  return (
    <>
      <p>
        <a href={salesHref(partnerId, { kind: order.state === 'PENDING' ? 'holds' : 'resales' })}>{slm(lang, 'backToSales')}</a>
      </p>
      <h2 id="order">{slm(lang, 'orderTitle')}</h2>
      <div class="table-wrap">
        <table class="data">
          <tbody>
            <tr>
              <th scope="row">{slm(lang, 'order')}</th>
              <td>
                <code>{order.id}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'state')}</th>
              <td>
                {slm(lang, `istate_${order.state}`)}
                {model.payment && model.payment.state !== 'succeeded' ? ` · ${slm(lang, `pstate_${model.payment.state}`)}` : ''}
              </td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'event')}</th>
              <td>
                <Where lang={lang} where={order.where} />
              </td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'buyer')}</th>
              <td>{order.buyer ?? '–'}</td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'total')}</th>
              <td>{money(order.totalMinor, order.currency, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'created')}</th>
              <td>{when(order.createdAt, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{slm(lang, 'paidAt')}</th>
              <td>{when(order.paidAt, lang)}</td>
            </tr>
            {model.payment ? (
              <tr>
                <th scope="row">{slm(lang, 'paidWith')}</th>
                <td>
                  {methodOf(lang, model.payment)} · {slm(lang, 'provider')} {model.payment.provider} <code>{model.payment.providerRef}</code>
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>

      <h3 id="tickets">{slm(lang, 'tickets')}</h3>
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{slm(lang, 'ticketId')}</th>
              <th scope="col">{slm(lang, 'seat')}</th>
              <th scope="col">{slm(lang, 'seller')}</th>
              <th scope="col">{slm(lang, 'listing')}</th>
              <th scope="col">{slm(lang, 'perTicket')}</th>
            </tr>
          </thead>
          <tbody>
            {model.tickets.map((t) => (
              <tr>
                <td>
                  <code>{t.ticketId}</code>
                </td>
                <td>{t.section || t.row || t.seat ? slm(lang, 'seatOf', { section: t.section ?? '–', row: t.row ?? '–', seat: t.seat ?? '–' }) : slm(lang, 'noSeat')}</td>
                <td>{t.seller}</td>
                <td>
                  <code>{t.listingId}</code>
                </td>
                <td class="num">{money(t.unitMinor, t.currency, lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3 id="timeline">{slm(lang, 'timelineTitle')}</h3>
      <p class="hint">{slm(lang, 'timelineIntro')}</p>
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{slm(lang, 'when')}</th>
              <th scope="col">{slm(lang, 'what')}</th>
              <th scope="col">{slm(lang, 'link')}</th>
            </tr>
          </thead>
          <tbody>
            {model.timeline.map((e) => (
              <tr data-kind={e.kind}>
                <td>{when(e.at, lang)}</td>
                <td>{entryText(lang, e)}</td>
                <td>
                  <EntryRecord lang={lang} partnerId={partnerId} entry={e} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      {order.state === 'PAID' || props.refusal ? (
        <>
          <h3 id="refund">{slm(lang, 'refundTitle')}</h3>
          {props.refusal ? (
            <Notice kind="error">{props.refusal}</Notice>
          ) : model.refusal ? (
            <p class="muted">{slm(lang, `refusal_${model.refusal}`)}</p>
          ) : model.mayRefund ? (
            <form method="post" action={props.refund.action} class="card">
              <CsrfField token={props.refund.csrf} />
              <p>{slm(lang, 'refundIntro')}</p>
              <button type="submit">{slm(lang, 'refundButton', { amount: money(order.totalMinor, order.currency, lang) })}</button>
            </form>
          ) : (
            <p class="muted">{slm(lang, 'refundOperatorsOnly')}</p>
          )}
        </>
      ) : null}
    </>
  );
}
