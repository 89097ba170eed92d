-- The body's exact text (webhooks.table.ts): jsonb kept a value, not its text. A stored object
-- becomes its JSON text (jsonb's key order, which the partner has been receiving); a JSON
-- string value becomes that string.
ALTER TABLE "webhook_messages" ALTER COLUMN "payload" SET DATA TYPE text USING (CASE WHEN jsonb_typeof("payload") = 'string' THEN "payload" #>> '{}' ELSE "payload"::text END);
