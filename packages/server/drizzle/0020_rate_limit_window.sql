-- The limits' state changes meaning (a token bucket's arrival time → the requests of each second of a sliding window): the old rows are dropped, as a crash of the UNLOGGED table would; every client starts a fresh minute.
DELETE FROM `rate_limits`;--> statement-breakpoint
ALTER TABLE `rate_limits` ADD `hits` text NOT NULL;--> statement-breakpoint
ALTER TABLE `rate_limits` DROP COLUMN `tat`;