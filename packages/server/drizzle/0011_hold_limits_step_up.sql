ALTER TABLE `sessions` ADD `stepped_up_at` integer;--> statement-breakpoint
ALTER TABLE `buy_intentions` ADD `client_key` text;--> statement-breakpoint
CREATE INDEX `buy_intentions_buyer_idx` ON `buy_intentions` (`buyer_pk`,`state`);--> statement-breakpoint
CREATE INDEX `buy_intentions_client_idx` ON `buy_intentions` (`client_key`,`state`);