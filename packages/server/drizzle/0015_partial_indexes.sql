DROP INDEX `users_partner_external_uq`;--> statement-breakpoint
DROP INDEX `users_partner_phone_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_partner_external_uq` ON `users` (`partner_id`,`external_id`) WHERE "users"."external_id" is not null;--> statement-breakpoint
CREATE INDEX `users_partner_phone_idx` ON `users` (`partner_id`,`phone`) WHERE "users"."phone" is not null;--> statement-breakpoint
DROP INDEX `tickets_order_idx`;--> statement-breakpoint
CREATE INDEX `tickets_order_idx` ON `tickets` (`partner_id`,`order_id`) WHERE "tickets"."order_id" is not null;