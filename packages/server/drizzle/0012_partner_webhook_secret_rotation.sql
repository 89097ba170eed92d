ALTER TABLE `partners` ADD `previous_webhook_secret_sealed` text;--> statement-breakpoint
ALTER TABLE `partners` ADD `previous_webhook_secret_until` integer;