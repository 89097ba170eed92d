ALTER TABLE "risk_evaluations" ADD COLUMN "customer_level" text;--> statement-breakpoint
ALTER TABLE "risk_evaluations" ADD COLUMN "transaction_level" text;--> statement-breakpoint
ALTER TABLE "risk_evaluations" ADD COLUMN "signals" jsonb;--> statement-breakpoint
CREATE INDEX "risk_evaluations_partner_idx" ON "risk_evaluations" USING btree ("partner_id","created_at");--> statement-breakpoint
CREATE INDEX "risk_feedback_tx_idx" ON "risk_feedback" USING btree ("partner_id","transaction_id");