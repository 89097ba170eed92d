import type { Job } from './job.js';
import { authService } from '../domain/auth/auth.service.js';

/**
 * Hourly: deletes one-time tokens and sessions a day after they expired (or were revoked)
 * and one-time passwords two days after they were sent; the console's sessions, codes and passkey challenges alike. Safe with several processes
 * (plain conditional deletes).
 */
export const authPurgeJob: Job = {
  name: 'auth-purge',
  everyMs: 60 * 60_000,
  scope: 'deployment',
  async run(deps) {
    const removed = await deps.db.transact(async (tx) => await authService(deps).purgeExpired(tx));
    if (removed.tokens + removed.sessions + removed.codes > 0) deps.logger.debug({ job: 'auth-purge', ...removed }, 'auth rows purged');
    const consoleRows = await deps.db.transact(async (tx) => await deps.consoleAccess.purgeExpired(tx));
    if (consoleRows.sessions + consoleRows.codes + consoleRows.challenges > 0) deps.logger.debug({ job: 'auth-purge', consoleSessions: consoleRows.sessions, consoleCodes: consoleRows.codes, consolePasskeyChallenges: consoleRows.challenges }, 'console rows purged');
  },
};
