CREATE TABLE `buy_intentions` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`buyer_pk` text,
	`state` text NOT NULL,
	`listing_ids` text NOT NULL,
	`currency` text NOT NULL,
	`total_minor` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`return_to` text,
	`end_reason` text,
	`paid_at` integer,
	`ended_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`buyer_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `buy_intentions_due_idx` ON `buy_intentions` (`state`,`expires_at`);--> statement-breakpoint
CREATE INDEX `buy_intentions_partner_idx` ON `buy_intentions` (`partner_id`,`created_at`);