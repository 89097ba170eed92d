import type { Clock } from '../lib/clock.js';
import type { Db } from './client.js';
import { databaseNowMs, selectRows, sharedByProcesses } from './dialect.js';
import { sql } from 'drizzle-orm';

/** How often the offset to the database's clock is measured again. */
const SYNC_EVERY_MS = 60_000;

/**
 * The wall clock corrected to the database server's clock: what a process of a deployment
 * reads (`deps.clock`) when several processes share a database (PostgreSQL), so leases,
 * holds, claims and due times written by one process mean the same instant to every other,
 * whatever the drift between their machines. The offset is measured at start (half the round
 * trip subtracted) and again every minute; reading the clock costs no query. Over SQLite (one
 * process, the database on the same machine) it is the wall clock itself.
 */
export class DatabaseClock implements Clock {
  private offset = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: Db, private readonly wall: () => number = Date.now) {}

  now(): number {
    return this.wall() + this.offset;
  }

  /** The last measured offset (database minus this machine), in milliseconds. */
  get offsetMs(): number {
    return this.offset;
  }

  /**
   * Measures the offset once, then again every minute until `stop()`. A failed measurement (the
   * database not reachable yet) keeps the last offset (0 at first) and is tried again later.
   */
  async start(): Promise<void> {
    await this.sync().catch(() => undefined);
    this.timer = setInterval(() => void this.sync().catch(() => undefined), SYNC_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One measurement: the database's time against the middle of the round trip. */
  async sync(): Promise<void> {
    if (!sharedByProcesses) return;
    const before = this.wall();
    const [row] = await this.db.read(async (tx) => await selectRows<{ now: number }>(tx, sql`select ${databaseNowMs()} as now`));
    const after = this.wall();
    // Whole milliseconds: instants are stored as integers.
    this.offset = Math.round(Number(row!.now) - (before + after) / 2);
  }
}
