CREATE TABLE "admission_doors" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"show_pk" text NOT NULL,
	"label" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"revoked_at" bigint,
	"last_seen_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admission_doors" ADD CONSTRAINT "admission_doors_show_pk_shows_id_fk" FOREIGN KEY ("show_pk") REFERENCES "public"."shows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admission_doors_token_uq" ON "admission_doors" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "admission_doors_show_idx" ON "admission_doors" USING btree ("show_pk");