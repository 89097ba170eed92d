-- UNLOGGED: a limit's state is worth no WAL write or flush per request; a crash that empties it
-- only gives every client a fresh burst (middleware/rate-limit.table.ts).
CREATE UNLOGGED TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"tat" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"name" text PRIMARY KEY NOT NULL,
	"due_at" bigint NOT NULL,
	"ran_by" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "otp_codes" ADD COLUMN "client_address" text;--> statement-breakpoint
CREATE INDEX "otp_codes_client_address_idx" ON "otp_codes" USING btree ("client_address","created_at");