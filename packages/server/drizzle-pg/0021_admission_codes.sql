CREATE TABLE "admission_credentials" (
	"ticket_pk" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"serial" bigint NOT NULL,
	"epoch" bigint NOT NULL,
	"owner_pk" text NOT NULL,
	"device_key" text,
	"bound_at" bigint,
	"admitted_scan" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admission_issuers" (
	"show_pk" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"key_tag" bigint NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"tag_secret_sealed" text NOT NULL,
	"rotation_seconds" bigint NOT NULL,
	"last_serial" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admission_credentials" ADD CONSTRAINT "admission_credentials_ticket_pk_tickets_id_fk" FOREIGN KEY ("ticket_pk") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admission_credentials" ADD CONSTRAINT "admission_credentials_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admission_credentials" ADD CONSTRAINT "admission_credentials_owner_pk_users_id_fk" FOREIGN KEY ("owner_pk") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admission_issuers" ADD CONSTRAINT "admission_issuers_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admission_credentials_show_serial_uq" ON "admission_credentials" USING btree ("show_pk","serial");--> statement-breakpoint
CREATE UNIQUE INDEX "admission_issuers_partner_tag_uq" ON "admission_issuers" USING btree ("partner_id","key_tag");