CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`tat` real NOT NULL
);
--> statement-breakpoint
CREATE TABLE `job_runs` (
	`name` text PRIMARY KEY NOT NULL,
	`due_at` integer NOT NULL,
	`ran_by` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `otp_codes` ADD `client_address` text;--> statement-breakpoint
CREATE INDEX `otp_codes_client_address_idx` ON `otp_codes` (`client_address`,`created_at`);