CREATE TABLE `risk_evaluations` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`customer_key` text NOT NULL,
	`device_key` text,
	`card_key` text,
	`amount_minor` integer,
	`currency` text,
	`overall` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `risk_evaluations_customer_idx` ON `risk_evaluations` (`partner_id`,`customer_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `risk_evaluations_card_idx` ON `risk_evaluations` (`partner_id`,`card_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `risk_evaluations_device_idx` ON `risk_evaluations` (`partner_id`,`device_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `risk_evaluations_tx_idx` ON `risk_evaluations` (`partner_id`,`transaction_id`);--> statement-breakpoint
CREATE TABLE `risk_feedback` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`user_id` text NOT NULL,
	`result` text NOT NULL,
	`customer_key` text,
	`device_key` text,
	`card_key` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `risk_feedback_partner_idx` ON `risk_feedback` (`partner_id`,`result`);