CREATE TABLE "provider_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"received_at" bigint NOT NULL,
	CONSTRAINT "provider_events_provider_event_id_pk" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "declines" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "provider_events_received_idx" ON "provider_events" USING btree ("received_at");