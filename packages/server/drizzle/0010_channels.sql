CREATE TABLE `channel_listings` (
	`listing_id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`external_listing_id` text NOT NULL,
	`seller_reference` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`listing_id`) REFERENCES `listings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_listings_external_uq` ON `channel_listings` (`partner_id`,`channel_id`,`external_listing_id`);--> statement-breakpoint
CREATE INDEX `channel_listings_partner_idx` ON `channel_listings` (`partner_id`,`listing_id`);