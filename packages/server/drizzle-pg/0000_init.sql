CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"kind" text NOT NULL,
	"hash" text NOT NULL,
	"hint" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb NOT NULL,
	"webhook_secret_sealed" text NOT NULL,
	"platform_secret_sealed" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"partner_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response_status" bigint,
	"response_body" text,
	"locked_until" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_partner_id_key_pk" PRIMARY KEY("partner_id","key")
);
--> statement-breakpoint
CREATE TABLE "combinations" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"ticket_option_pk" text NOT NULL,
	"price_type_pk" text NOT NULL,
	"price_minor" bigint NOT NULL,
	"description" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"external_reference_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"location" jsonb NOT NULL,
	"producers" jsonb NOT NULL,
	"configuration" jsonb NOT NULL,
	"seating" jsonb,
	"source" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "price_types" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"price_type_id" text NOT NULL,
	"external_object_id" jsonb,
	"title" text,
	"description" text,
	"web_visibility" boolean NOT NULL,
	"web_sold_out" boolean,
	"stock" bigint,
	"invisible" boolean NOT NULL,
	"inventory" jsonb,
	"position" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shows" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"event_pk" text NOT NULL,
	"show_id" text NOT NULL,
	"title" text NOT NULL,
	"starts_at" bigint NOT NULL,
	"status" text NOT NULL,
	"primary_sales_url" text,
	"images" jsonb NOT NULL,
	"configuration" jsonb NOT NULL,
	"location" jsonb,
	"show_rescheduled" boolean NOT NULL,
	"resale_enabled" boolean NOT NULL,
	"dates" jsonb,
	"sales_start_at" bigint,
	"tags" jsonb NOT NULL,
	"cancelled_at" bigint,
	"ticket_shield" boolean DEFAULT false NOT NULL,
	"unlock_announced_at" bigint,
	"position" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_options" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"ticket_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"currency" text NOT NULL,
	"price_minor" bigint,
	"stock" bigint,
	"web_visibility" boolean NOT NULL,
	"web_sold_out" boolean,
	"area" text,
	"position" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rules" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"ticket_option_pk" text NOT NULL,
	"price_type_pk" text,
	"scope_key" text NOT NULL,
	"rule_type" text NOT NULL,
	"rules" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feed_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"feed" text NOT NULL,
	"started_at" bigint NOT NULL,
	"finished_at" bigint NOT NULL,
	"ok" boolean NOT NULL,
	"applied" bigint NOT NULL,
	"skipped" bigint NOT NULL,
	"problems" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"external_id" text,
	"email" text,
	"phone" text,
	"first_name" text,
	"last_name" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "one_time_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"user_pk" text NOT NULL,
	"token_hash" text NOT NULL,
	"purpose" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "otp_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"identifier" text NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"user_pk" text NOT NULL,
	"token_hash" text NOT NULL,
	"csrf_secret" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	"stepped_up_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"attempt" bigint NOT NULL,
	"url" text NOT NULL,
	"at" bigint NOT NULL,
	"status_code" bigint,
	"latency_ms" bigint NOT NULL,
	"error" text,
	"next_attempt_at" bigint
);
--> statement-breakpoint
CREATE TABLE "webhook_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"action" text NOT NULL,
	"family" text NOT NULL,
	"resource_key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"state" text NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at" bigint,
	"delivered_at" bigint,
	"last_status" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text,
	"channel" text NOT NULL,
	"to" text NOT NULL,
	"template" text NOT NULL,
	"lang" text NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"html" text,
	"attachments" jsonb NOT NULL,
	"state" text NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at" bigint,
	"sent_at" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ticket_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"state" text NOT NULL,
	"total" bigint NOT NULL,
	"items" jsonb NOT NULL,
	"results" jsonb NOT NULL,
	"created" bigint NOT NULL,
	"updated" bigint NOT NULL,
	"rejected" bigint NOT NULL,
	"attempts" bigint NOT NULL,
	"lease_until" bigint,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"ticket_id" text NOT NULL,
	"event_pk" text NOT NULL,
	"show_pk" text NOT NULL,
	"ticket_option_pk" text NOT NULL,
	"price_type_pk" text,
	"owner_pk" text NOT NULL,
	"state" text NOT NULL,
	"price_minor" bigint,
	"currency" text,
	"ticket_access" jsonb NOT NULL,
	"buyer_email_external" text,
	"primary_sale_buyer_data" jsonb,
	"nominal_ticket" jsonb,
	"props" jsonb,
	"primary_sales_fee" jsonb,
	"flags" jsonb,
	"tags" jsonb NOT NULL,
	"section" text,
	"row" text,
	"seat" text,
	"order_id" text,
	"admitted_at" bigint,
	"unlock_notified_at" bigint,
	"deleted_at" bigint,
	"cancelled_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "listing_tickets" (
	"listing_id" text NOT NULL,
	"ticket_pk" text NOT NULL,
	CONSTRAINT "listing_tickets_listing_id_ticket_pk_pk" PRIMARY KEY("listing_id","ticket_pk")
);
--> statement-breakpoint
CREATE TABLE "listings" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"event_pk" text NOT NULL,
	"show_pk" text NOT NULL,
	"ticket_option_pk" text NOT NULL,
	"price_type_pk" text,
	"seller_pk" text NOT NULL,
	"order_id" text,
	"quantity" bigint NOT NULL,
	"state" text NOT NULL,
	"currency" text NOT NULL,
	"price_minor" bigint NOT NULL,
	"buyer_fee_minor" bigint NOT NULL,
	"seller_fee_minor" bigint NOT NULL,
	"payout_minor" bigint NOT NULL,
	"intention_id" text,
	"end_reason" text,
	"sold_at" bigint,
	"ended_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"user_pk" text NOT NULL,
	"holder_name" text NOT NULL,
	"account_sealed" text NOT NULL,
	"account_hint" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"seller_pk" text NOT NULL,
	"listing_id" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"due_at" bigint NOT NULL,
	"state" text NOT NULL,
	"delivered_at" bigint,
	"cancelled_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "buy_intentions" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"buyer_pk" text,
	"state" text NOT NULL,
	"listing_ids" jsonb NOT NULL,
	"currency" text NOT NULL,
	"total_minor" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"return_to" text,
	"client_key" text,
	"end_reason" text,
	"paid_at" bigint,
	"ended_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"intention_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_ref" text NOT NULL,
	"state" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"card_last4" text,
	"failure_code" text,
	"refunded_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "risk_evaluations" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"customer_key" text NOT NULL,
	"device_key" text,
	"card_key" text,
	"amount_minor" bigint,
	"currency" text,
	"overall" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "risk_feedback" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"user_id" text NOT NULL,
	"result" text NOT NULL,
	"customer_key" text,
	"device_key" text,
	"card_key" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "show_inventory" (
	"show_pk" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"capacity" bigint,
	"released_tickets" bigint,
	"reserved_space" bigint,
	"sold_out" boolean,
	"sold_percentage" double precision,
	"items" jsonb NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "marketdata_leads" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"event_pk" text NOT NULL,
	"show_pk" text NOT NULL,
	"type" text NOT NULL,
	"buyer_key" text NOT NULL,
	"buyer_id" text,
	"buyer_email" text,
	"buyer_phone" text,
	"buyer_first_name" text,
	"buyer_last_name" text,
	"ticket_option_id" text,
	"price_type_id" text,
	"date" bigint,
	"ticket_id" text,
	"price_minor" bigint,
	"currency" text,
	"seating" jsonb,
	"attributes" jsonb NOT NULL,
	"tags" jsonb NOT NULL,
	"metadata" jsonb,
	"notified_at" bigint,
	"notification_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_listings" (
	"listing_id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"external_listing_id" text NOT NULL,
	"seller_reference" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "combinations" ADD CONSTRAINT "combinations_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "combinations" ADD CONSTRAINT "combinations_ticket_option_pk_ticket_options_id_fk" FOREIGN KEY ("ticket_option_pk") REFERENCES "public"."ticket_options"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "combinations" ADD CONSTRAINT "combinations_price_type_pk_price_types_id_fk" FOREIGN KEY ("price_type_pk") REFERENCES "public"."price_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_types" ADD CONSTRAINT "price_types_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shows" ADD CONSTRAINT "shows_event_pk_events_id_fk" FOREIGN KEY ("event_pk") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ticket_options" ADD CONSTRAINT "ticket_options_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_ticket_option_pk_ticket_options_id_fk" FOREIGN KEY ("ticket_option_pk") REFERENCES "public"."ticket_options"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rules" ADD CONSTRAINT "rules_price_type_pk_price_types_id_fk" FOREIGN KEY ("price_type_pk") REFERENCES "public"."price_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_user_pk_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_pk_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_webhook_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."webhook_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_event_pk_events_id_fk" FOREIGN KEY ("event_pk") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_ticket_option_pk_ticket_options_id_fk" FOREIGN KEY ("ticket_option_pk") REFERENCES "public"."ticket_options"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_price_type_pk_price_types_id_fk" FOREIGN KEY ("price_type_pk") REFERENCES "public"."price_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tickets" ADD CONSTRAINT "tickets_owner_pk_users_id_fk" FOREIGN KEY ("owner_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_tickets" ADD CONSTRAINT "listing_tickets_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_tickets" ADD CONSTRAINT "listing_tickets_ticket_pk_tickets_id_fk" FOREIGN KEY ("ticket_pk") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_event_pk_events_id_fk" FOREIGN KEY ("event_pk") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_ticket_option_pk_ticket_options_id_fk" FOREIGN KEY ("ticket_option_pk") REFERENCES "public"."ticket_options"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_price_type_pk_price_types_id_fk" FOREIGN KEY ("price_type_pk") REFERENCES "public"."price_types"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_seller_pk_users_id_fk" FOREIGN KEY ("seller_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_accounts" ADD CONSTRAINT "payout_accounts_user_pk_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_seller_pk_users_id_fk" FOREIGN KEY ("seller_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buy_intentions" ADD CONSTRAINT "buy_intentions_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buy_intentions" ADD CONSTRAINT "buy_intentions_buyer_pk_users_id_fk" FOREIGN KEY ("buyer_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_intention_id_buy_intentions_id_fk" FOREIGN KEY ("intention_id") REFERENCES "public"."buy_intentions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "show_inventory" ADD CONSTRAINT "show_inventory_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "marketdata_leads" ADD CONSTRAINT "marketdata_leads_event_pk_events_id_fk" FOREIGN KEY ("event_pk") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "marketdata_leads" ADD CONSTRAINT "marketdata_leads_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_listings" ADD CONSTRAINT "channel_listings_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_partner_idx" ON "api_keys" USING btree ("partner_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "combinations_pair_uq" ON "combinations" USING btree ("ticket_option_pk","price_type_pk");--> statement-breakpoint
CREATE UNIQUE INDEX "events_partner_ref_uq" ON "events" USING btree ("partner_id","external_reference_id");--> statement-breakpoint
CREATE UNIQUE INDEX "price_types_show_price_type_uq" ON "price_types" USING btree ("show_pk","price_type_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shows_event_show_uq" ON "shows" USING btree ("event_pk","show_id");--> statement-breakpoint
CREATE INDEX "shows_announced_idx" ON "shows" USING btree ("status","sales_start_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ticket_options_show_ticket_uq" ON "ticket_options" USING btree ("show_pk","ticket_id");--> statement-breakpoint
CREATE UNIQUE INDEX "rules_scope_type_uq" ON "rules" USING btree ("ticket_option_pk","scope_key","rule_type");--> statement-breakpoint
CREATE INDEX "feed_runs_partner_idx" ON "feed_runs" USING btree ("partner_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_partner_external_uq" ON "users" USING btree ("partner_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_partner_email_uq" ON "users" USING btree ("partner_id","email");--> statement-breakpoint
CREATE INDEX "users_partner_phone_idx" ON "users" USING btree ("partner_id","phone");--> statement-breakpoint
CREATE UNIQUE INDEX "one_time_tokens_hash_uq" ON "one_time_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "otp_codes_identifier_idx" ON "otp_codes" USING btree ("partner_id","identifier","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_hash_uq" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "webhook_attempts_message_idx" ON "webhook_attempts" USING btree ("message_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_messages_due_idx" ON "webhook_messages" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_messages_resource_idx" ON "webhook_messages" USING btree ("partner_id","resource_key","created_at");--> statement-breakpoint
CREATE INDEX "webhook_messages_partner_idx" ON "webhook_messages" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_due_idx" ON "messages" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "messages_created_idx" ON "messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ticket_jobs_state_idx" ON "ticket_jobs" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "ticket_jobs_partner_idx" ON "ticket_jobs" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_partner_ticket_uq" ON "tickets" USING btree ("partner_id","ticket_id");--> statement-breakpoint
CREATE INDEX "tickets_show_state_idx" ON "tickets" USING btree ("show_pk","state");--> statement-breakpoint
CREATE INDEX "tickets_owner_idx" ON "tickets" USING btree ("owner_pk");--> statement-breakpoint
CREATE INDEX "tickets_order_idx" ON "tickets" USING btree ("partner_id","order_id");--> statement-breakpoint
CREATE INDEX "listing_tickets_ticket_idx" ON "listing_tickets" USING btree ("ticket_pk");--> statement-breakpoint
CREATE INDEX "listings_show_state_idx" ON "listings" USING btree ("show_pk","state","price_minor");--> statement-breakpoint
CREATE INDEX "listings_seller_idx" ON "listings" USING btree ("seller_pk","state");--> statement-breakpoint
CREATE INDEX "listings_partner_idx" ON "listings" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payout_accounts_user_uq" ON "payout_accounts" USING btree ("user_pk");--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_listing_uq" ON "payouts" USING btree ("listing_id");--> statement-breakpoint
CREATE INDEX "payouts_due_idx" ON "payouts" USING btree ("state","due_at");--> statement-breakpoint
CREATE INDEX "buy_intentions_due_idx" ON "buy_intentions" USING btree ("state","expires_at");--> statement-breakpoint
CREATE INDEX "buy_intentions_partner_idx" ON "buy_intentions" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "buy_intentions_buyer_idx" ON "buy_intentions" USING btree ("buyer_pk","state");--> statement-breakpoint
CREATE INDEX "buy_intentions_client_idx" ON "buy_intentions" USING btree ("client_key","state");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_provider_ref_uq" ON "payments" USING btree ("provider","provider_ref");--> statement-breakpoint
CREATE INDEX "payments_intention_idx" ON "payments" USING btree ("intention_id");--> statement-breakpoint
CREATE INDEX "payments_state_idx" ON "payments" USING btree ("state");--> statement-breakpoint
CREATE INDEX "risk_evaluations_customer_idx" ON "risk_evaluations" USING btree ("partner_id","customer_key","created_at");--> statement-breakpoint
CREATE INDEX "risk_evaluations_card_idx" ON "risk_evaluations" USING btree ("partner_id","card_key","created_at");--> statement-breakpoint
CREATE INDEX "risk_evaluations_device_idx" ON "risk_evaluations" USING btree ("partner_id","device_key","created_at");--> statement-breakpoint
CREATE INDEX "risk_evaluations_tx_idx" ON "risk_evaluations" USING btree ("partner_id","transaction_id");--> statement-breakpoint
CREATE INDEX "risk_feedback_partner_idx" ON "risk_feedback" USING btree ("partner_id","result");--> statement-breakpoint
CREATE UNIQUE INDEX "marketdata_leads_identity_uq" ON "marketdata_leads" USING btree ("partner_id","event_pk","show_pk","buyer_key");--> statement-breakpoint
CREATE INDEX "marketdata_leads_partner_idx" ON "marketdata_leads" USING btree ("partner_id","id");--> statement-breakpoint
CREATE INDEX "marketdata_leads_wishlist_pending_idx" ON "marketdata_leads" USING btree ("show_pk") WHERE type = 'WISHLIST' and notified_at is null and buyer_email is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_listings_external_uq" ON "channel_listings" USING btree ("partner_id","channel_id","external_listing_id");--> statement-breakpoint
CREATE INDEX "channel_listings_partner_idx" ON "channel_listings" USING btree ("partner_id","listing_id");