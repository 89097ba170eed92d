CREATE TABLE `manual_loads` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`created_by` text NOT NULL,
	`file_name` text NOT NULL,
	`format` text NOT NULL,
	`sha256` text NOT NULL,
	`rows` integer NOT NULL,
	`state` text NOT NULL,
	`sheet` text,
	`preview` text NOT NULL,
	`result` text,
	`applied_by` text,
	`applied_at` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `manual_loads_partner_idx` ON `manual_loads` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `manual_loads_expires_idx` ON `manual_loads` (`expires_at`);