CREATE TABLE `console_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`purpose` text NOT NULL,
	`session_pk` text,
	`code_hash` text NOT NULL,
	`attempts` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	`client_address` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `console_codes_email_idx` ON `console_codes` (`email`,`created_at`);--> statement-breakpoint
CREATE INDEX `console_codes_client_address_idx` ON `console_codes` (`client_address`,`created_at`);--> statement-breakpoint
CREATE TABLE `console_memberships` (
	`id` text PRIMARY KEY NOT NULL,
	`user_pk` text NOT NULL,
	`partner_id` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_pk`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_memberships_user_partner_uq` ON `console_memberships` (`user_pk`,`partner_id`);--> statement-breakpoint
CREATE INDEX `console_memberships_partner_idx` ON `console_memberships` (`partner_id`);--> statement-breakpoint
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_pk` text NOT NULL,
	`token_hash` text NOT NULL,
	`csrf_secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`stepped_up_at` integer,
	FOREIGN KEY (`user_pk`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_sessions_hash_uq` ON `console_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `console_sessions_user_idx` ON `console_sessions` (`user_pk`);--> statement-breakpoint
CREATE TABLE `console_users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`operator` integer NOT NULL,
	`first_sign_in_at` integer,
	`last_sign_in_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_users_email_uq` ON `console_users` (`email`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`actor_email` text,
	`role` text,
	`partner_id` text,
	`action` text NOT NULL,
	`target` text,
	`before` text,
	`after` text,
	`client_address` text,
	`request_id` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_partner_idx` ON `audit_log` (`partner_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor_idx` ON `audit_log` (`actor_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`,`at`);--> statement-breakpoint
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
