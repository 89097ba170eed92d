CREATE TABLE `show_inventory` (
	`show_pk` text PRIMARY KEY NOT NULL,
	`partner_id` text NOT NULL,
	`capacity` integer,
	`released_tickets` integer,
	`reserved_space` integer,
	`sold_out` integer,
	`sold_percentage` real,
	`items` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`show_pk`) REFERENCES `shows`(`id`) ON UPDATE no action ON DELETE cascade
);
