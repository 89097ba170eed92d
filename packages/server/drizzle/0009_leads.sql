CREATE TABLE `marketdata_leads` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`event_pk` text NOT NULL,
	`show_pk` text NOT NULL,
	`type` text NOT NULL,
	`buyer_key` text NOT NULL,
	`buyer_id` text,
	`buyer_email` text,
	`buyer_phone` text,
	`buyer_first_name` text,
	`buyer_last_name` text,
	`ticket_option_id` text,
	`price_type_id` text,
	`date` integer,
	`ticket_id` text,
	`price_minor` integer,
	`currency` text,
	`seating` text,
	`attributes` text NOT NULL,
	`tags` text NOT NULL,
	`metadata` text,
	`notified_at` integer,
	`notification_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_pk`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `marketdata_leads_identity_uq` ON `marketdata_leads` (`partner_id`,`event_pk`,`show_pk`,`buyer_key`);--> statement-breakpoint
CREATE INDEX `marketdata_leads_partner_idx` ON `marketdata_leads` (`partner_id`,`id`);--> statement-breakpoint
CREATE INDEX `marketdata_leads_wishlist_pending_idx` ON `marketdata_leads` (`show_pk`) WHERE type = 'WISHLIST' and notified_at is null and buyer_email is not null;