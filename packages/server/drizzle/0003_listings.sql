CREATE TABLE `listing_tickets` (
	`listing_id` text NOT NULL,
	`ticket_pk` text NOT NULL,
	PRIMARY KEY(`listing_id`, `ticket_pk`),
	FOREIGN KEY (`listing_id`) REFERENCES `listings`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_pk`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `listing_tickets_ticket_idx` ON `listing_tickets` (`ticket_pk`);--> statement-breakpoint
CREATE TABLE `listings` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`event_pk` text NOT NULL,
	`show_pk` text NOT NULL,
	`ticket_option_pk` text NOT NULL,
	`price_type_pk` text,
	`seller_pk` text NOT NULL,
	`order_id` text,
	`quantity` integer NOT NULL,
	`state` text NOT NULL,
	`currency` text NOT NULL,
	`price_minor` integer NOT NULL,
	`buyer_fee_minor` integer NOT NULL,
	`seller_fee_minor` integer NOT NULL,
	`payout_minor` integer NOT NULL,
	`intention_id` text,
	`end_reason` text,
	`sold_at` integer,
	`ended_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_pk`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_option_pk`) REFERENCES `ticket_options`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`price_type_pk`) REFERENCES `price_types`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`seller_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `listings_show_state_idx` ON `listings` (`show_pk`,`state`,`price_minor`);--> statement-breakpoint
CREATE INDEX `listings_seller_idx` ON `listings` (`seller_pk`,`state`);--> statement-breakpoint
CREATE INDEX `listings_partner_idx` ON `listings` (`partner_id`,`created_at`);