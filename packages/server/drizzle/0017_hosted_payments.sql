CREATE TABLE `provider_events` (
	`provider` text NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `event_id`)
);
--> statement-breakpoint
CREATE INDEX `provider_events_received_idx` ON `provider_events` (`received_at`);--> statement-breakpoint
ALTER TABLE `payments` ADD `declines` integer DEFAULT 0 NOT NULL;