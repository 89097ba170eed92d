ALTER TABLE "shows" ADD COLUMN "venue_scans" text;--> statement-breakpoint
ALTER TABLE "shows" ADD COLUMN "rotation_seconds" bigint;--> statement-breakpoint
ALTER TABLE "admission_credentials" ADD COLUMN "recent_binds" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "admission_credentials" ADD COLUMN "binds_since" bigint;--> statement-breakpoint
ALTER TABLE "admission_issuers" DROP COLUMN "rotation_seconds";