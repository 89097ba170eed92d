-- A ticket job is applied and marked done in one transaction (TicketsIngest.drain); no worker leases one any more. A job an older release left leased (`running`) was never applied, its writes and its mark being one transaction: it is queued again, to be applied whole, in its place in the queue.
UPDATE "ticket_jobs" SET "state" = 'queued', "lease_until" = NULL WHERE "state" = 'running';
