CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`kind` text NOT NULL,
	`hash` text NOT NULL,
	`hint` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_partner_idx` ON `api_keys` (`partner_id`,`kind`);--> statement-breakpoint
CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`settings` text NOT NULL,
	`webhook_secret_sealed` text NOT NULL,
	`platform_secret_sealed` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`partner_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`locked_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`partner_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `combinations` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`ticket_option_pk` text NOT NULL,
	`price_type_pk` text NOT NULL,
	`price_minor` integer NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_option_pk`) REFERENCES `ticket_options`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`price_type_pk`) REFERENCES `price_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `combinations_pair_uq` ON `combinations` (`ticket_option_pk`,`price_type_pk`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`external_reference_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`location` text NOT NULL,
	`producers` text NOT NULL,
	`configuration` text NOT NULL,
	`seating` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_partner_ref_uq` ON `events` (`partner_id`,`external_reference_id`);--> statement-breakpoint
CREATE TABLE `price_types` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`price_type_id` text NOT NULL,
	`external_object_id` text,
	`title` text,
	`description` text,
	`web_visibility` integer NOT NULL,
	`web_sold_out` integer,
	`stock` integer,
	`invisible` integer NOT NULL,
	`inventory` text,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `price_types_show_price_type_uq` ON `price_types` (`show_pk`,`price_type_id`);--> statement-breakpoint
CREATE TABLE `shows` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`event_pk` text NOT NULL,
	`show_id` text NOT NULL,
	`title` text NOT NULL,
	`starts_at` integer NOT NULL,
	`status` text NOT NULL,
	`primary_sales_url` text,
	`images` text NOT NULL,
	`configuration` text NOT NULL,
	`location` text,
	`show_rescheduled` integer NOT NULL,
	`resale_enabled` integer NOT NULL,
	`dates` text,
	`sales_start_at` integer,
	`tags` text NOT NULL,
	`cancelled_at` integer,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_pk`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shows_event_show_uq` ON `shows` (`event_pk`,`show_id`);--> statement-breakpoint
CREATE INDEX `shows_announced_idx` ON `shows` (`status`,`sales_start_at`);--> statement-breakpoint
CREATE TABLE `ticket_options` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`ticket_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`currency` text NOT NULL,
	`price_minor` integer,
	`stock` integer,
	`web_visibility` integer NOT NULL,
	`web_sold_out` integer,
	`area` text,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_options_show_ticket_uq` ON `ticket_options` (`show_pk`,`ticket_id`);--> statement-breakpoint
CREATE TABLE `rules` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`ticket_option_pk` text NOT NULL,
	`price_type_pk` text,
	`scope_key` text NOT NULL,
	`rule_type` text NOT NULL,
	`rules` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_option_pk`) REFERENCES `ticket_options`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`price_type_pk`) REFERENCES `price_types`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rules_scope_type_uq` ON `rules` (`ticket_option_pk`,`scope_key`,`rule_type`);--> statement-breakpoint
CREATE TABLE `feed_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`feed` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`ok` integer NOT NULL,
	`applied` integer NOT NULL,
	`skipped` integer NOT NULL,
	`problems` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `feed_runs_partner_idx` ON `feed_runs` (`partner_id`,`started_at`);