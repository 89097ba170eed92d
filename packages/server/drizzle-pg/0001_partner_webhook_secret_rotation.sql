ALTER TABLE "partners" ADD COLUMN "previous_webhook_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "previous_webhook_secret_until" bigint;