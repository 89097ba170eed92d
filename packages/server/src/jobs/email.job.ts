import type { AppDeps } from '../context.js';
import type { Job } from './job.js';
import type { MessagesService } from '../domain/email/email.service.js';

/**
 * Delivers the outbox of e-mails and SMS every 2 s: one batch of due messages per tick
 * (`MessagesService.deliverDue`). Safe with several processes: each message is claimed
 * with a conditional update before it is sent. Transport failures never throw (they are
 * retried with a back-off); a database error is logged by the scheduler.
 */
export const emailJob: Job = {
  name: 'email',
  everyMs: 2000,
  // Woken by a new message (MessagesService.send) in any process.
  wakeOn: 'email',
  async run(deps) {
    // Written so it compiles before and after `messages` joins AppDeps (see deps.ts).
    const messages = (deps as AppDeps & { messages?: MessagesService }).messages;
    if (!messages) throw new Error('AppDeps.messages is not wired: add it in deps.ts');
    const report = await messages.deliverDue();
    if (report.retried + report.failed > 0) deps.logger.debug({ job: 'email', ...report }, 'email delivery round');
  },
};
