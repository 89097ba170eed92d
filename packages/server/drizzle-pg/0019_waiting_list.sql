CREATE TABLE "waitinglist_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"event_pk" text NOT NULL,
	"show_pk" text NOT NULL,
	"user_pk" text NOT NULL,
	"ticket_option_pk" text,
	"quantity" bigint NOT NULL,
	"together" boolean NOT NULL,
	"seq" bigint NOT NULL,
	"state" text NOT NULL,
	"source" text NOT NULL,
	"joined_at" bigint NOT NULL,
	"ended_at" bigint,
	"end_reason" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "waitinglist_history" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"entry_id" text NOT NULL,
	"offer_id" text,
	"seq" bigint NOT NULL,
	"kind" text NOT NULL,
	"at" bigint NOT NULL,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "waitinglist_offers" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"entry_id" text NOT NULL,
	"intention_id" text NOT NULL,
	"listing_ids" jsonb NOT NULL,
	"quantity" bigint NOT NULL,
	"state" text NOT NULL,
	"notify_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"message_id" text,
	"ended_at" bigint,
	"end_reason" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "waitinglist_settings" (
	"show_pk" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"offer_minutes" bigint NOT NULL,
	"quiet_hours" jsonb,
	"price_cap" text NOT NULL,
	"next_seq" bigint NOT NULL,
	"waiting" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "waitinglist_entries" ADD CONSTRAINT "waitinglist_entries_event_pk_events_id_fk" FOREIGN KEY ("event_pk") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_entries" ADD CONSTRAINT "waitinglist_entries_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_entries" ADD CONSTRAINT "waitinglist_entries_user_pk_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_entries" ADD CONSTRAINT "waitinglist_entries_ticket_option_pk_ticket_options_id_fk" FOREIGN KEY ("ticket_option_pk") REFERENCES "public"."ticket_options"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_offers" ADD CONSTRAINT "waitinglist_offers_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_offers" ADD CONSTRAINT "waitinglist_offers_entry_id_waitinglist_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."waitinglist_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_offers" ADD CONSTRAINT "waitinglist_offers_intention_id_buy_intentions_id_fk" FOREIGN KEY ("intention_id") REFERENCES "public"."buy_intentions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitinglist_settings" ADD CONSTRAINT "waitinglist_settings_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "waitinglist_entries_show_seq_uq" ON "waitinglist_entries" USING btree ("show_pk","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "waitinglist_entries_live_uq" ON "waitinglist_entries" USING btree ("show_pk","user_pk") WHERE state in ('WAITING', 'OFFERED');--> statement-breakpoint
CREATE INDEX "waitinglist_entries_live_seq_idx" ON "waitinglist_entries" USING btree ("show_pk","seq") WHERE state in ('WAITING', 'OFFERED');--> statement-breakpoint
CREATE INDEX "waitinglist_entries_match_idx" ON "waitinglist_entries" USING btree ("show_pk","state","quantity","together","seq");--> statement-breakpoint
CREATE INDEX "waitinglist_entries_user_idx" ON "waitinglist_entries" USING btree ("partner_id","user_pk");--> statement-breakpoint
CREATE UNIQUE INDEX "waitinglist_history_show_seq_uq" ON "waitinglist_history" USING btree ("show_pk","seq");--> statement-breakpoint
CREATE INDEX "waitinglist_history_entry_idx" ON "waitinglist_history" USING btree ("entry_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "waitinglist_offers_intention_uq" ON "waitinglist_offers" USING btree ("intention_id");--> statement-breakpoint
CREATE UNIQUE INDEX "waitinglist_offers_live_uq" ON "waitinglist_offers" USING btree ("entry_id") WHERE state = 'LIVE';--> statement-breakpoint
CREATE INDEX "waitinglist_offers_entry_idx" ON "waitinglist_offers" USING btree ("entry_id","created_at");--> statement-breakpoint
CREATE INDEX "waitinglist_offers_show_idx" ON "waitinglist_offers" USING btree ("show_pk","state");
--> statement-breakpoint
CREATE FUNCTION "waitinglist_history_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'waitinglist_history is append-only'; END $$;
--> statement-breakpoint
CREATE TRIGGER "waitinglist_history_append_only" BEFORE UPDATE OR DELETE ON "waitinglist_history" FOR EACH ROW EXECUTE FUNCTION "waitinglist_history_append_only"();
