CREATE TABLE `connect_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`user_pk` text NOT NULL,
	`provider` text NOT NULL,
	`account_id` text NOT NULL,
	`details_submitted` integer NOT NULL,
	`transfers_active` integer NOT NULL,
	`payouts_enabled` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connect_accounts_user_uq` ON `connect_accounts` (`user_pk`);--> statement-breakpoint
CREATE UNIQUE INDEX `connect_accounts_account_uq` ON `connect_accounts` (`provider`,`account_id`);--> statement-breakpoint
ALTER TABLE `payouts` ADD `transfer_ref` text;--> statement-breakpoint
ALTER TABLE `payouts` ADD `sending_at` integer;--> statement-breakpoint
ALTER TABLE `payouts` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `charge_ref` text;