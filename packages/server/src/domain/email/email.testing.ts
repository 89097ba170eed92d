import { createServer, type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { TestApp } from '../../testing/harness.js';
import { mailboxRoutes } from '../../http/pages/email/email.pages.js';
import type { MessagesService } from './email.service.js';

/**
 * Test helpers of the email module (tests only): a real SMTP server on loopback, a tiny
 * MIME reader for what it received, and the mailbox routes mounted on a test app.
 */

/** One message the SMTP server accepted. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message, bytes as latin1 so nothing is lost. */
  raw: string;
}

export interface TestSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Starts an SMTP server on 127.0.0.1 (`port` 0 picks a free one). No TLS, no auth required. */
export async function startSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // The test server has no certificate worth trusting; plain SMTP over loopback.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `smtp://127.0.0.1:${actual}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A decoded MIME part. */
export interface MimePart {
  headers: Record<string, string>;
  /** Decoded body of a leaf part. */
  body: Buffer;
  parts: MimePart[];
}

function decodeQuotedPrintable(s: string): Buffer {
  const soft = s.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const ch = soft[i]!;
    if (ch === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(soft.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

/** Parses a raw message (as received) into headers and decoded parts; enough for our tests. */
export function parseMime(raw: string): MimePart {
  const sep = raw.indexOf('\r\n\r\n');
  const head = (sep < 0 ? raw : raw.slice(0, sep)).replace(/\r\n[ \t]+/g, ' ');
  const bodyRaw = sep < 0 ? '' : raw.slice(sep + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = bodyRaw
      .split(`--${boundary}`)
      .slice(1)
      .filter((chunk) => !chunk.startsWith('--'))
      .map((chunk) => parseMime(chunk.replace(/^\r\n/, '').replace(/\r\n$/, '')));
    return { headers, body: Buffer.alloc(0), parts };
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const body =
    encoding === 'base64'
      ? Buffer.from(bodyRaw.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(bodyRaw)
        : Buffer.from(bodyRaw, 'latin1');
  return { headers, body, parts: [] };
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves);
}

/**
 * Mounts the mailbox pages on a test app, as app.ts does outside production, unless
 * app.ts already mounts them. Call before the app's first request.
 */
export function mountMailbox(t: TestApp, messages: MessagesService): void {
  if (!t.app.routes.some((r) => r.path === '/dev/mailbox')) t.app.route('/', mailboxRoutes({ config: t.deps.config, messages }));
}
