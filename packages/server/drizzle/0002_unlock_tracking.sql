ALTER TABLE `shows` ADD `unlock_announced_at` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `unlock_notified_at` integer;