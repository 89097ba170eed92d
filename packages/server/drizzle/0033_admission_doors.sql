CREATE TABLE `admission_doors` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`label` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_by` text NOT NULL,
	`revoked_at` integer,
	`last_seen_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admission_doors_token_uq` ON `admission_doors` (`token_hash`);--> statement-breakpoint
CREATE INDEX `admission_doors_show_idx` ON `admission_doors` (`show_pk`);