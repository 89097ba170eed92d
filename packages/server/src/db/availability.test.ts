import { describe, expect, it } from 'vitest';
import { ENGINE } from './engine.js';
import { DatabaseAvailability, isDatabaseUnavailable, watchAvailability, availabilityOf, type AvailabilityChange } from './availability.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('names the errors of a database that cannot be used, looking through causes', () => {
    for (const err of [
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      coded('ECONNRESET'),
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is starting up'),
      coded('08006'),
      coded('53300', 'sorry, too many clients already'),
      coded('25006', 'cannot execute INSERT in a read-only transaction'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      coded('SQLITE_FULL', 'database or disk is full'),
      coded('SQLITE_READONLY_DBMOVED'),
      coded('SQLITE_IOERR_WRITE'),
      new Error('Failed query: insert into …', { cause: coded('SQLITE_READONLY', 'attempt to write a readonly database') }),
      new Error('Failed query: select 1\nparams: ', { cause: new Error('Connection terminated unexpectedly') }),
    ]) {
      expect(isDatabaseUnavailable(err), err.message).toBe(true);
    }
  });

  it('leaves every other failure to be what it is (a 4xx, or a 500 that is ours)', () => {
    // A partner's platform refusing a connection: fetch's TypeError, whose cause is the socket's.
    expect(isDatabaseUnavailable(new TypeError('fetch failed', { cause: coded('ECONNREFUSED') }))).toBe(false);
    for (const err of [new Error('boom'), coded('23505', 'duplicate key value violates unique constraint'), coded('SQLITE_CONSTRAINT_UNIQUE'), coded('42P01', 'relation does not exist'), null, undefined, 'a string']) {
      expect(isDatabaseUnavailable(err)).toBe(false);
    }
  });
});

describe('DatabaseAvailability', () => {
  it('goes down on the first unavailable failure, tells its listeners once, and comes back with how long it was down', async () => {
    let now = 1_000;
    const availability = new DatabaseAvailability(() => now);
    const changes: AvailabilityChange[] = [];
    availability.onChange((c) => changes.push(c));
    await expect(availability.watch(Promise.reject(new Error('boom')), 'write')).rejects.toThrow('boom');
    expect(availability.down).toBe(false);
    await expect(availability.watch(Promise.reject(coded('ECONNREFUSED', 'refused')), 'write')).rejects.toThrow('refused');
    await expect(availability.watch(Promise.reject(coded('ECONNREFUSED', 'again')), 'read')).rejects.toThrow('again');
    expect(availability.outage).toEqual({ since: 1_000, reason: 'refused' });
    now = 3_500;
    expect(await availability.watch(Promise.resolve(7), 'write')).toBe(7);
    expect(availability.down).toBe(false);
    expect(changes).toEqual([{ available: false, reason: 'refused' }, { available: true, downMs: 2_500 }]);
  });

  it(`counts a successful read as the way back on ${ENGINE} ${ENGINE === 'postgres' ? '(a server that answers is back)' : 'only for a write (a full disk still answers reads)'}`, async () => {
    const availability = new DatabaseAvailability();
    availability.fail(coded('SQLITE_FULL'));
    await availability.watch(Promise.resolve(), 'read');
    expect(availability.down).toBe(ENGINE !== 'postgres');
    await availability.watch(Promise.resolve(), 'write');
    expect(availability.down).toBe(false);
  });

  it('wraps a handle’s root transact and read once, and answers their results unchanged', async () => {
    const handle = { transact: async (n: number) => n + 1, read: async (n: number) => n * 2 };
    const watched = watchAvailability(handle);
    expect(watchAvailability(watched)).toBe(watched);
    expect(await watched.transact(1)).toBe(2);
    expect(await watched.read(3)).toBe(6);
    expect(availabilityOf(watched)?.down).toBe(false);
    expect(availabilityOf({})).toBeUndefined();
  });
});
