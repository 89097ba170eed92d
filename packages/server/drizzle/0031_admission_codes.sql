CREATE TABLE `admission_credentials` (
	`ticket_pk` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`show_pk` text NOT NULL,
	`serial` integer NOT NULL,
	`epoch` integer NOT NULL,
	`owner_pk` text NOT NULL,
	`device_key` text,
	`bound_at` integer,
	`admitted_scan` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`ticket_pk`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admission_credentials_show_serial_uq` ON `admission_credentials` (`show_pk`,`serial`);--> statement-breakpoint
CREATE TABLE `admission_issuers` (
	`show_pk` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`key_tag` integer NOT NULL,
	`public_key` text NOT NULL,
	`private_key_sealed` text NOT NULL,
	`tag_secret_sealed` text NOT NULL,
	`rotation_seconds` integer NOT NULL,
	`last_serial` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admission_issuers_partner_tag_uq` ON `admission_issuers` (`partner_id`,`key_tag`);