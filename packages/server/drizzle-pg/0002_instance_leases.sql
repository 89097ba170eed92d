CREATE TABLE "service_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" bigint NOT NULL,
	"renewed_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "owner" text;