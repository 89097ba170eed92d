ALTER TABLE `shows` ADD `venue_scans` text;--> statement-breakpoint
ALTER TABLE `shows` ADD `rotation_seconds` integer;--> statement-breakpoint
ALTER TABLE `admission_credentials` ADD `recent_binds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `admission_credentials` ADD `binds_since` integer;--> statement-breakpoint
ALTER TABLE `admission_issuers` DROP COLUMN `rotation_seconds`;