CREATE TABLE `service_instances` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`renewed_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `owner` text;