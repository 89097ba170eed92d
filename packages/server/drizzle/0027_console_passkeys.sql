CREATE TABLE `console_passkey_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`challenge` text NOT NULL,
	`session_pk` text,
	`client_address` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `console_passkey_challenges_client_idx` ON `console_passkey_challenges` (`client_address`,`created_at`);--> statement-breakpoint
CREATE INDEX `console_passkey_challenges_session_idx` ON `console_passkey_challenges` (`session_pk`,`created_at`);--> statement-breakpoint
CREATE TABLE `console_passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_pk` text NOT NULL,
	`credential_id` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer NOT NULL,
	`transports` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`user_pk`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_passkeys_credential_uq` ON `console_passkeys` (`credential_id`);--> statement-breakpoint
CREATE INDEX `console_passkeys_user_idx` ON `console_passkeys` (`user_pk`);--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `passkey_pk` text;