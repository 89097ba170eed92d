import { Writable } from 'node:stream';
import pino from 'pino';

/**
 * A pino logger at `level` whose lines are kept, each parsed (a chunk holding several lines is
 * split), with the text as written: for tests of what the service logs and of what it never
 * logs (keys, query strings, bodies).
 *
 * @example
 * const log = capturedLogger();
 * const t = createTestApp({}, { logger: log.logger });
 * expect(log.lines.filter((l) => l.msg === 'request')).toHaveLength(1);
 * expect(log.text()).not.toContain(p.keys.private);
 */
export function capturedLogger(level: pino.LevelWithSilent = 'info'): { logger: pino.Logger; lines: Record<string, unknown>[]; text: () => string } {
  const lines: Record<string, unknown>[] = [];
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      const text = String(chunk);
      written.push(text);
      for (const line of text.split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines, text: () => written.join('') };
}
