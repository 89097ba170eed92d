import { describe, expect, it } from 'vitest';
import { testDb } from '../testing/harness.js';
import { DatabaseClock } from './database-clock.js';
import { ENGINE } from './engine.js';

describe('DatabaseClock', () => {
  it('reads the database server’s time on PostgreSQL even when this machine’s clock is five minutes slow, and the wall clock on SQLite', async () => {
    const slow = () => Date.now() - 5 * 60_000;
    const clock = new DatabaseClock(testDb(), slow);
    await clock.start();
    clock.stop();
    if (ENGINE === 'postgres') {
      // The test's database server runs on this machine, so its time is Date.now().
      expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
      expect(clock.offsetMs).toBeGreaterThan(5 * 60_000 - 1_000);
      // Whole milliseconds, as instants are stored.
      expect(Number.isInteger(clock.now())).toBe(true);
    } else {
      expect(clock.offsetMs).toBe(0);
      expect(Math.abs(clock.now() - slow())).toBeLessThan(50);
    }
  });
});
