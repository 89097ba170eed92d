CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"journal_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"account" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_journals" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"currency" text NOT NULL,
	"intention_id" text,
	"payout_id" text,
	"provider" text,
	"provider_ref" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_journal_id_ledger_journals_id_fk" FOREIGN KEY ("journal_id") REFERENCES "public"."ledger_journals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_entries_created_idx" ON "ledger_entries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_partner_created_idx" ON "ledger_entries" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_entries_journal_idx" ON "ledger_entries" USING btree ("journal_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_journals_key_uq" ON "ledger_journals" USING btree ("key");--> statement-breakpoint
CREATE INDEX "ledger_journals_created_idx" ON "ledger_journals" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ledger_journals_partner_created_idx" ON "ledger_journals" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "ledger_journals_intention_idx" ON "ledger_journals" USING btree ("intention_id");