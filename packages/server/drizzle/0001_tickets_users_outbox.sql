CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`external_id` text,
	`email` text,
	`phone` text,
	`first_name` text,
	`last_name` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_partner_external_uq` ON `users` (`partner_id`,`external_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_partner_email_uq` ON `users` (`partner_id`,`email`);--> statement-breakpoint
CREATE INDEX `users_partner_phone_idx` ON `users` (`partner_id`,`phone`);--> statement-breakpoint
CREATE TABLE `one_time_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`user_pk` text NOT NULL,
	`token_hash` text NOT NULL,
	`purpose` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `one_time_tokens_hash_uq` ON `one_time_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `otp_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`identifier` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `otp_codes_identifier_idx` ON `otp_codes` (`partner_id`,`identifier`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`user_pk` text NOT NULL,
	`token_hash` text NOT NULL,
	`csrf_secret` text NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_hash_uq` ON `sessions` (`token_hash`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`partner_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`url` text NOT NULL,
	`at` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`next_attempt_at` integer,
	FOREIGN KEY (`message_id`) REFERENCES `webhook_messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_message_idx` ON `webhook_attempts` (`message_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`action` text NOT NULL,
	`family` text NOT NULL,
	`resource_key` text NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`delivered_at` integer,
	`last_status` integer,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_messages_due_idx` ON `webhook_messages` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_messages_resource_idx` ON `webhook_messages` (`partner_id`,`resource_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_messages_partner_idx` ON `webhook_messages` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text,
	`channel` text NOT NULL,
	`to` text NOT NULL,
	`template` text NOT NULL,
	`lang` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text,
	`attachments` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer,
	`sent_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `messages_due_idx` ON `messages` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `messages_created_idx` ON `messages` (`created_at`);--> statement-breakpoint
CREATE TABLE `ticket_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`state` text NOT NULL,
	`total` integer NOT NULL,
	`items` text NOT NULL,
	`results` text NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	`rejected` integer NOT NULL,
	`attempts` integer NOT NULL,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `ticket_jobs_state_idx` ON `ticket_jobs` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `ticket_jobs_partner_idx` ON `ticket_jobs` (`partner_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tickets` (
	`id` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`ticket_id` text NOT NULL,
	`event_pk` text NOT NULL,
	`show_pk` text NOT NULL,
	`ticket_option_pk` text NOT NULL,
	`price_type_pk` text,
	`owner_pk` text NOT NULL,
	`state` text NOT NULL,
	`price_minor` integer,
	`currency` text,
	`ticket_access` text NOT NULL,
	`buyer_email_external` text,
	`primary_sale_buyer_data` text,
	`nominal_ticket` text,
	`props` text,
	`primary_sales_fee` text,
	`flags` text,
	`tags` text NOT NULL,
	`section` text,
	`row` text,
	`seat` text,
	`order_id` text,
	`admitted_at` integer,
	`deleted_at` integer,
	`cancelled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`event_pk`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_option_pk`) REFERENCES `ticket_options`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`price_type_pk`) REFERENCES `price_types`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_pk`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tickets_partner_ticket_uq` ON `tickets` (`partner_id`,`ticket_id`);--> statement-breakpoint
CREATE INDEX `tickets_show_state_idx` ON `tickets` (`show_pk`,`state`);--> statement-breakpoint
CREATE INDEX `tickets_owner_idx` ON `tickets` (`owner_pk`);--> statement-breakpoint
CREATE INDEX `tickets_order_idx` ON `tickets` (`partner_id`,`order_id`);--> statement-breakpoint
ALTER TABLE `shows` ADD `ticket_shield` integer DEFAULT false NOT NULL;