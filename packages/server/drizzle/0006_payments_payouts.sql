CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`intention_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_ref` text NOT NULL,
	`state` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`card_last4` text,
	`failure_code` text,
	`refunded_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`intention_id`) REFERENCES `buy_intentions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_ref_uq` ON `payments` (`provider`,`provider_ref`);--> statement-breakpoint
CREATE INDEX `payments_intention_idx` ON `payments` (`intention_id`);--> statement-breakpoint
CREATE INDEX `payments_state_idx` ON `payments` (`state`);--> statement-breakpoint
CREATE TABLE `payouts` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`seller_pk` text NOT NULL,
	`listing_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`due_at` integer NOT NULL,
	`state` text NOT NULL,
	`delivered_at` integer,
	`cancelled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`seller_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`listing_id`) REFERENCES `listings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_listing_uq` ON `payouts` (`listing_id`);--> statement-breakpoint
CREATE INDEX `payouts_due_idx` ON `payouts` (`state`,`due_at`);