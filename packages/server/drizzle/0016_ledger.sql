CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`journal_id` text NOT NULL,
	`partner_id` text NOT NULL,
	`account` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`journal_id`) REFERENCES `ledger_journals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_created_idx` ON `ledger_entries` (`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_entries_partner_created_idx` ON `ledger_entries` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_entries_journal_idx` ON `ledger_entries` (`journal_id`);--> statement-breakpoint
CREATE TABLE `ledger_journals` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`currency` text NOT NULL,
	`intention_id` text,
	`payout_id` text,
	`provider` text,
	`provider_ref` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_journals_key_uq` ON `ledger_journals` (`key`);--> statement-breakpoint
CREATE INDEX `ledger_journals_created_idx` ON `ledger_journals` (`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_journals_partner_created_idx` ON `ledger_journals` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_journals_intention_idx` ON `ledger_journals` (`intention_id`);