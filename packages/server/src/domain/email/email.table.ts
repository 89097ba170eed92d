import { dbTable, index, integer, text } from '../../db/schema-builders.js';

/** An attachment kept with its message until it is sent (content base64). */
export interface StoredAttachment {
  filename: string;
  contentType: string;
  contentBase64: string;
}

/**
 * Every message (e-mail, or SMS through the SMS interface) is persisted before it is sent
 * and retried on failure; in development the stored messages are the mailbox page.
 */
export const messages = dbTable(
  'messages',
  {
    id: text().primaryKey(),
    partnerId: text(),
    channel: text({ enum: ['email', 'sms'] }).notNull(),
    to: text().notNull(),
    template: text().notNull(),
    lang: text().notNull(),
    subject: text().notNull(),
    text: text().notNull(),
    html: text(),
    attachments: text({ mode: 'json' }).$type<StoredAttachment[]>().notNull(),
    state: text({ enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer().notNull(),
    nextAttemptAt: integer(),
    sentAt: integer(),
    lastError: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index('messages_due_idx').on(t.state, t.nextAttemptAt), index('messages_created_idx').on(t.createdAt)],
);
