CREATE TABLE `waitinglist_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`event_pk` text NOT NULL,
	`show_pk` text NOT NULL,
	`user_pk` text NOT NULL,
	`ticket_option_pk` text,
	`quantity` integer NOT NULL,
	`together` integer NOT NULL,
	`seq` integer NOT NULL,
	`state` text NOT NULL,
	`source` text NOT NULL,
	`joined_at` integer NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_pk`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`ticket_option_pk`) REFERENCES `ticket_options`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_entries_show_seq_uq` ON `waitinglist_entries` (`show_pk`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_entries_live_uq` ON `waitinglist_entries` (`show_pk`,`user_pk`) WHERE state in ('WAITING', 'OFFERED');--> statement-breakpoint
CREATE INDEX `waitinglist_entries_live_seq_idx` ON `waitinglist_entries` (`show_pk`,`seq`) WHERE state in ('WAITING', 'OFFERED');--> statement-breakpoint
CREATE INDEX `waitinglist_entries_match_idx` ON `waitinglist_entries` (`show_pk`,`state`,`quantity`,`together`,`seq`);--> statement-breakpoint
CREATE INDEX `waitinglist_entries_user_idx` ON `waitinglist_entries` (`partner_id`,`user_pk`);--> statement-breakpoint
CREATE TABLE `waitinglist_history` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`entry_id` text NOT NULL,
	`offer_id` text,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_history_show_seq_uq` ON `waitinglist_history` (`show_pk`,`seq`);--> statement-breakpoint
CREATE INDEX `waitinglist_history_entry_idx` ON `waitinglist_history` (`entry_id`,`seq`);--> statement-breakpoint
CREATE TABLE `waitinglist_offers` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`entry_id` text NOT NULL,
	`intention_id` text NOT NULL,
	`listing_ids` text NOT NULL,
	`quantity` integer NOT NULL,
	`state` text NOT NULL,
	`notify_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`message_id` text,
	`ended_at` integer,
	`end_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`entry_id`) REFERENCES `waitinglist_entries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`intention_id`) REFERENCES `buy_intentions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_offers_intention_uq` ON `waitinglist_offers` (`intention_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `waitinglist_offers_live_uq` ON `waitinglist_offers` (`entry_id`) WHERE state = 'LIVE';--> statement-breakpoint
CREATE INDEX `waitinglist_offers_entry_idx` ON `waitinglist_offers` (`entry_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `waitinglist_offers_show_idx` ON `waitinglist_offers` (`show_pk`,`state`);--> statement-breakpoint
CREATE TABLE `waitinglist_settings` (
	`show_pk` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`offer_minutes` integer NOT NULL,
	`quiet_hours` text,
	`price_cap` text NOT NULL,
	`next_seq` integer NOT NULL,
	`waiting` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TRIGGER `waitinglist_history_no_update` BEFORE UPDATE ON `waitinglist_history` BEGIN SELECT RAISE(ABORT, 'waitinglist_history is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `waitinglist_history_no_delete` BEFORE DELETE ON `waitinglist_history` BEGIN SELECT RAISE(ABORT, 'waitinglist_history is append-only'); END;
