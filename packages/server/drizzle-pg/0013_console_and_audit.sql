CREATE TABLE "console_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"purpose" text NOT NULL,
	"session_pk" text,
	"code_hash" text NOT NULL,
	"attempts" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL,
	"client_address" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_memberships" (
	"id" text PRIMARY KEY NOT NULL,
	"user_pk" text NOT NULL,
	"partner_id" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_pk" text NOT NULL,
	"token_hash" text NOT NULL,
	"csrf_secret" text NOT NULL,
	"created_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	"stepped_up_at" bigint
);
--> statement-breakpoint
CREATE TABLE "console_users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"operator" boolean NOT NULL,
	"first_sign_in_at" bigint,
	"last_sign_in_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_email" text,
	"role" text,
	"partner_id" text,
	"action" text NOT NULL,
	"target" text,
	"before" jsonb,
	"after" jsonb,
	"client_address" text,
	"request_id" text
);
--> statement-breakpoint
ALTER TABLE "console_memberships" ADD CONSTRAINT "console_memberships_user_pk_console_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_user_pk_console_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_codes_email_idx" ON "console_codes" USING btree ("email","created_at");--> statement-breakpoint
CREATE INDEX "console_codes_client_address_idx" ON "console_codes" USING btree ("client_address","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "console_memberships_user_partner_uq" ON "console_memberships" USING btree ("user_pk","partner_id");--> statement-breakpoint
CREATE INDEX "console_memberships_partner_idx" ON "console_memberships" USING btree ("partner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_sessions_hash_uq" ON "console_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_sessions_user_idx" ON "console_sessions" USING btree ("user_pk");--> statement-breakpoint
CREATE UNIQUE INDEX "console_users_email_uq" ON "console_users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_log_partner_idx" ON "audit_log" USING btree ("partner_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log" USING btree ("action","at");--> statement-breakpoint
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "audit_log" FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
