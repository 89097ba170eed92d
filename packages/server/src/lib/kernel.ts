import type { Logger } from 'pino';
import type { Db } from '../db/client.js';
import type { Clock } from './clock.js';
import type { AppConfig } from './config.js';
import type { SecretBox } from './crypto.js';
import type { DomainEvents } from './domain-events.js';

/**
 * What every part of the service may be given, whatever its ring: the database, the clock, the
 * settings, the logger, the secret box and the in-process event bus. A service or a flow names
 * what it needs from here (`Pick<Kernel, 'db' | 'clock'>`) and, beside it, the other modules'
 * services it calls by their own types: no file lists every service but the composition root
 * (context.ts's `AppDeps`, built by deps.ts).
 */
export interface Kernel {
  db: Db;
  clock: Clock;
  config: AppConfig;
  logger: Logger;
  box: SecretBox;
  bus: DomainEvents;
}
