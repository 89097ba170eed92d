ALTER TABLE `risk_evaluations` ADD `customer_level` text;--> statement-breakpoint
ALTER TABLE `risk_evaluations` ADD `transaction_level` text;--> statement-breakpoint
ALTER TABLE `risk_evaluations` ADD `signals` text;--> statement-breakpoint
CREATE INDEX `risk_evaluations_partner_idx` ON `risk_evaluations` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `risk_feedback_tx_idx` ON `risk_feedback` (`partner_id`,`transaction_id`);