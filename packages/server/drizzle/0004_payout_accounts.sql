CREATE TABLE `payout_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`user_pk` text NOT NULL,
	`holder_name` text NOT NULL,
	`account_sealed` text NOT NULL,
	`account_hint` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payout_accounts_user_uq` ON `payout_accounts` (`user_pk`);