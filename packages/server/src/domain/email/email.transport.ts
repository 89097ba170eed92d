import { createTransport } from 'nodemailer';

/**
 * How stored messages leave the service. The delivery loop (`MessagesService.deliverDue`)
 * only knows these two interfaces; the row in `messages` is the source of truth either way.
 */

/** An attachment as callers give it and transports send it. */
export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** One e-mail to send, read back from its stored row. */
export interface OutgoingEmail {
  /** The message row id; used as the Message-ID so receivers can drop a duplicate. */
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  attachments: Attachment[];
}

/** One SMS to send. `to` is E.164 (`+34612345678`). */
export interface OutgoingSms {
  id: string;
  to: string;
  text: string;
}

/**
 * Sends e-mail. Resolves when the message was accepted; rejects with an Error otherwise
 * (the message is then retried after a back-off).
 */
export interface Transport {
  readonly name: string;
  sendEmail(message: OutgoingEmail): Promise<void>;
  /** Releases connections (pooled transports); optional. */
  close?(): void;
}

/**
 * Sends SMS. The only implementation today is the development mailbox.
 *
 * A real provider plugs in by implementing this interface (call the provider's HTTP API
 * in `sendSms`, resolve when it accepted the message, reject on any failure so the
 * message is retried; pass `message.id` as the provider's idempotency/reference key when
 * it has one) and passing it as `sms` to `createMessagesService` (for example chosen from
 * an `SMS_URL` setting, the way `SMTP_URL` chooses the e-mail transport).
 */
export interface SmsSender {
  readonly name: string;
  sendSms(message: OutgoingSms): Promise<void>;
}

/**
 * Development transport: sending is a no-op, so the message is marked sent and stays
 * readable on the `/dev/mailbox` page, which reads the stored rows.
 */
export const mailboxTransport: Transport = {
  name: 'mailbox',
  async sendEmail() {},
};

/** Development SMS sender: the SMS stays readable on the `/dev/mailbox` page. */
export const mailboxSms: SmsSender = {
  name: 'mailbox',
  async sendSms() {},
};

/** Domain of the From address, for Message-IDs. */
function fromDomain(mailFrom: string): string {
  const m = /@([^\s>@]+)>?\s*$/.exec(mailFrom);
  return m?.[1] ?? 'resale.invalid';
}

/**
 * E-mail over SMTP with nodemailer. `smtpUrl` is `smtp://user:pass@host:587` or
 * `smtps://…:465`; nodemailer options may be added as query parameters
 * (`?connectionTimeout=5000`) and win over the defaults below. One connection per message
 * (no pool): the delivery loop sends small batches every few seconds.
 *
 * @example
 * const transport = smtpTransport('smtp://127.0.0.1:1025', 'resale <no-reply@resale.example>');
 * await transport.sendEmail({ id, to, subject, text, html, attachments: [] });
 */
export function smtpTransport(smtpUrl: string, mailFrom: string): Transport {
  // Timeouts well under the claim lease of the delivery loop (see email.service.ts), so a
  // hanging server fails the attempt instead of letting a second worker send it again.
  const mailer = createTransport({ url: smtpUrl, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 }, { from: mailFrom });
  const domain = fromDomain(mailFrom);
  return {
    name: 'smtp',
    async sendEmail(message) {
      await mailer.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== null ? { html: message.html } : {}),
        messageId: `<${message.id}@${domain}>`,
        attachments: message.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
      });
    },
    close() {
      mailer.close();
    },
  };
}
