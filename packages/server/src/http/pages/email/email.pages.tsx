import { Hono, type Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppConfig } from '../../../lib/config.js';
import type { AppEnv } from '../../../context.js';
import { toIso } from '../../../lib/clock.js';
import { ok } from '../../../lib/envelope.js';
import { ApiError } from '../../../lib/errors.js';
import type { MessageRow, MessagesService } from '../../../domain/email/email.service.js';

/**
 * The development mailbox: every stored message (e-mail and SMS) readable in a browser, so
 * a newcomer without an SMTP server still sees what the service sends.
 *
 * DEVELOPMENT ONLY, NO AUTHENTICATION: the pages show recipients, one-time codes and
 * ticket links. app.ts mounts them only when `config.env !== 'production'`, and this
 * router is empty in production as a second guard.
 *
 * - `GET /dev/mailbox` (optional `?to=`): the list, newest first
 * - `GET /dev/mailbox/{id}`: one message: text, HTML in a sandboxed iframe, attachments
 * - `GET /dev/mailbox/{id}/attachments/{n}`: attachment n (0-based) as a download
 * - `GET /dev/mailbox.json` (optional `?to=`): the list as the envelope, for tests and demos
 *
 * Server-rendered with hono/jsx, which escapes every value; message HTML is only ever
 * passed as the `srcdoc` attribute of an iframe with an empty `sandbox` (no scripts, no
 * forms, a unique origin).
 */

/** What the pages need. */
export interface MailboxDeps {
  config: Pick<AppConfig, 'env'>;
  messages: MessagesService;
}

// No remote resources; inline styles for the page and the e-mails inside srcdoc frames.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function pageHeaders(c: Context<AppEnv>): void {
  c.header('Content-Security-Policy', PAGE_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
}

// No quotes or angle brackets, so it needs no raw injection to stay valid CSS.
const CSS = `
body { font-family: system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fff; line-height: 1.5 }
header { background: #fff4ce; border-bottom: 1px solid #d6b656; padding: 8px 24px }
main { padding: 16px 24px; max-width: 1100px }
table { border-collapse: collapse; width: 100% }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #ccc; vertical-align: top }
caption { text-align: left; font-weight: bold; padding: 8px 0 }
pre { white-space: pre-wrap; background: #f4f4f4; padding: 12px; border: 1px solid #ccc }
iframe { width: 100%; height: 520px; border: 1px solid #ccc }
dt { font-weight: bold }
dd { margin: 0 0 8px 0 }
a { color: #1a4fd6 }
a:focus, button:focus, input:focus { outline: 3px solid #1a4fd6; outline-offset: 2px }
`;

function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <style>{CSS}</style>
      </head>
      <body>
        <header>
          <p>
            <strong>Development mailbox.</strong> Messages stored by this service (e-mail and SMS). Served only outside production, without
            authentication.
          </p>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

function render(node: { toString(): string | Promise<string> }): string {
  const out = node.toString();
  if (typeof out !== 'string') throw new Error('mailbox pages render synchronously');
  return '<!DOCTYPE html>' + out;
}

const size = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${Math.ceil(bytes / 1024)} KB`);
const at = (ms: number | null) => (ms === null ? '' : toIso(ms));
const messageUrl = (id: string) => `/dev/mailbox/${encodeURIComponent(id)}`;
const attachmentUrl = (id: string, n: number) => `${messageUrl(id)}/attachments/${n}`;

function ListPage(props: { rows: MessageRow[]; to: string; transport: string }) {
  return (
    <Layout title="Development mailbox">
      <h1>Development mailbox</h1>
      <p>
        E-mail transport: <strong>{props.transport}</strong>
        {props.transport === 'mailbox' ? ' (no SMTP_URL: e-mails are kept here and marked sent).' : ' (e-mails also go to the SMTP server).'} SMS are
        always kept here.
      </p>
      <form method="get" action="/dev/mailbox" role="search">
        <label for="to">Recipient</label> <input id="to" name="to" type="text" value={props.to} autocomplete="off" /> <button type="submit">Filter</button>{' '}
        <a href="/dev/mailbox">Show all</a> · <a href={props.to ? `/dev/mailbox.json?to=${encodeURIComponent(props.to)}` : '/dev/mailbox.json'}>JSON</a>
      </form>
      {props.rows.length === 0 ? (
        <p>No messages{props.to ? ` to ${props.to}` : ''} yet.</p>
      ) : (
        <table>
          <caption>
            {props.rows.length} message{props.rows.length === 1 ? '' : 's'}, newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Channel</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((m) => (
              <tr>
                <td>
                  <time datetime={at(m.createdAt)}>{at(m.createdAt)}</time>
                </td>
                <td>{m.channel === 'sms' ? 'SMS' : 'E-mail'}</td>
                <td>{m.to}</td>
                <td lang={m.lang}>
                  <a href={messageUrl(m.id)}>{m.subject}</a>
                </td>
                <td>{m.state}</td>
                <td>{m.attempts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

function MessagePage(props: { m: MessageRow }) {
  const m = props.m;
  const fields: [string, string][] = [
    ['Id', m.id],
    ['Channel', m.channel === 'sms' ? 'SMS' : 'E-mail'],
    ['To', m.to],
    ['Template', `${m.template} (${m.lang})`],
    ['State', m.state],
    ['Attempts', String(m.attempts)],
    ['Created', at(m.createdAt)],
    ['Sent', at(m.sentAt) || '—'],
    ['Next attempt', at(m.nextAttemptAt) || '—'],
    ['Last error', m.lastError ?? '—'],
  ];
  return (
    <Layout title={`${m.subject} · Development mailbox`}>
      <nav aria-label="Mailbox">
        <a href="/dev/mailbox">← All messages</a>
      </nav>
      <h1 lang={m.lang}>{m.subject}</h1>
      <dl>
        {fields.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      <h2>Text</h2>
      <pre lang={m.lang}>{m.text}</pre>
      {m.html !== null && (
        <>
          <h2>HTML</h2>
          <iframe sandbox="" srcdoc={m.html} title={`HTML version of “${m.subject}”`} loading="lazy"></iframe>
        </>
      )}
      {m.channel === 'email' && (
        <>
          <h2>Attachments</h2>
          {m.attachments.length === 0 ? (
            <p>None.</p>
          ) : (
            <ul>
              {m.attachments.map((a, n) => (
                <li>
                  <a href={attachmentUrl(m.id, n)} download={a.filename}>
                    {a.filename}
                  </a>{' '}
                  ({a.contentType}, {size(Buffer.byteLength(a.contentBase64, 'base64'))})
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Layout>
  );
}

/** The JSON form of a stored message (attachments as metadata plus a download URL). */
export function messageToJson(m: MessageRow) {
  return {
    id: m.id,
    partnerId: m.partnerId,
    channel: m.channel,
    to: m.to,
    template: m.template,
    lang: m.lang,
    subject: m.subject,
    text: m.text,
    html: m.html,
    attachments: m.attachments.map((a, n) => ({
      filename: a.filename,
      contentType: a.contentType,
      size: Buffer.byteLength(a.contentBase64, 'base64'),
      url: attachmentUrl(m.id, n),
    })),
    state: m.state,
    attempts: m.attempts,
    lastError: m.lastError,
    nextAttemptAt: m.nextAttemptAt === null ? null : toIso(m.nextAttemptAt),
    sentAt: m.sentAt === null ? null : toIso(m.sentAt),
    createdAt: toIso(m.createdAt),
  };
}

const SAFE_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/** `attachment` with an ASCII fallback name and the exact name per RFC 6266 / 5987. */
function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\w.\- ]/g, '_').slice(0, 150) || 'attachment';
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase());
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

function queryTo(c: Context<AppEnv>): string {
  return (c.req.query('to') ?? '').trim().slice(0, 320);
}

/**
 * Routes of the development mailbox (see the top of this file). Empty in production.
 *
 * @example if (deps.config.env !== 'production') app.route('/', mailboxRoutes(deps));
 */
export function mailboxRoutes(deps: MailboxDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  if (deps.config.env === 'production') return router;

  router.get('/dev/mailbox', async (c) => {
    const to = queryTo(c);
    const rows = await deps.messages.list({ to });
    pageHeaders(c);
    return c.html(render(<ListPage rows={rows} to={to} transport={deps.messages.transportName} />));
  });

  router.get('/dev/mailbox.json', async (c) => {
    const rows = await deps.messages.list({ to: queryTo(c) });
    c.header('Cache-Control', 'no-store');
    return c.json(ok(rows.map(messageToJson)));
  });

  router.get('/dev/mailbox/:id', async (c) => {
    const m = await deps.messages.get(c.req.param('id'));
    pageHeaders(c);
    return c.html(render(<MessagePage m={m} />));
  });

  router.get('/dev/mailbox/:id/attachments/:n', async (c) => {
    const n = c.req.param('n');
    if (!/^\d{1,4}$/.test(n)) throw ApiError.notFound('attachment', `${c.req.param('id')}/${n}`);
    const a = await deps.messages.attachment(c.req.param('id'), Number(n));
    return c.body(new Uint8Array(a.content), 200, {
      'Content-Type': SAFE_TYPE.test(a.contentType) ? a.contentType : 'application/octet-stream',
      'Content-Disposition': contentDisposition(a.filename),
      'Content-Length': String(a.content.length),
      // Served from our origin: never rendered as a page of it, whatever its type.
      'Content-Security-Policy': "sandbox; default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
  });

  return router;
}
