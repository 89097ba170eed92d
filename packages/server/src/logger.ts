import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Redaction is a second line of defence: the request logger
 * already logs only method, path, status and ids, never headers, query or bodies.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'resale' },
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', 'headers.cookie', '*.password', '*.token', '*.secret', '*.email', '*.phone'],
      censor: '[redacted]',
    },
  });
}
