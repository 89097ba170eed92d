CREATE TABLE "connect_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"user_pk" text NOT NULL,
	"provider" text NOT NULL,
	"account_id" text NOT NULL,
	"details_submitted" boolean NOT NULL,
	"transfers_active" boolean NOT NULL,
	"payouts_enabled" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "transfer_ref" text;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "sending_at" bigint;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "charge_ref" text;--> statement-breakpoint
ALTER TABLE "connect_accounts" ADD CONSTRAINT "connect_accounts_user_pk_users_id_fk" FOREIGN KEY ("user_pk") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "connect_accounts_user_uq" ON "connect_accounts" USING btree ("user_pk");--> statement-breakpoint
CREATE UNIQUE INDEX "connect_accounts_account_uq" ON "connect_accounts" USING btree ("provider","account_id");