CREATE TABLE "console_passkey_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"challenge" text NOT NULL,
	"session_pk" text,
	"client_address" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_pk" text NOT NULL,
	"credential_id" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" bigint NOT NULL,
	"transports" jsonb NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint
);
--> statement-breakpoint
ALTER TABLE "console_sessions" ADD COLUMN "passkey_pk" text;--> statement-breakpoint
ALTER TABLE "console_passkeys" ADD CONSTRAINT "console_passkeys_user_pk_console_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_passkey_challenges_client_idx" ON "console_passkey_challenges" USING btree ("client_address","created_at");--> statement-breakpoint
CREATE INDEX "console_passkey_challenges_session_idx" ON "console_passkey_challenges" USING btree ("session_pk","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "console_passkeys_credential_uq" ON "console_passkeys" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "console_passkeys_user_idx" ON "console_passkeys" USING btree ("user_pk");