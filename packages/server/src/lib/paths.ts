import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server package's folder (packages/server): the nearest folder above this module whose
 * package.json is `@resale/server`.
 *
 * Files the service reads at run time (`drizzle/`, the migrations; `../widgets/dist`, the
 * widget bundles) are found from here rather than from a fixed number of `..` after
 * `import.meta.url`: from sources (tsx, vitest) this module is src/lib/paths.ts, compiled
 * (`npm run build`) it is part of one bundle per entry, dist/main.js and
 * dist/tickets.worker.thread.js, at another depth.
 *
 * @example join(SERVER_ROOT, 'drizzle')
 */
export const SERVER_ROOT = findServerRoot(dirname(fileURLToPath(import.meta.url)));

function findServerRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === '@resale/server') return dir;
    } catch {
      // No package.json here (or not JSON): keep walking up.
    }
    if (dirname(dir) === dir) throw new Error(`@resale/server's package.json not found above ${from}`);
  }
}
