/**
 * Obtains the service's OpenAPI document without a running server: starts the service in this
 * process (`start` of `@resale/server/start`) on a throwaway SQLite file, reads
 * `GET /v1/openapi.json`, stops it and removes the file. Used by `npm run generate` and by the
 * freshness test; never imported by the client itself (src/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the client package uses of the server's `start` (`@resale/server/start`). */
export type Start = (env: Record<string, string>) => Promise<{ port: number; stop(): Promise<void> }>;

/**
 * The server's entry point, imported by name (a devDependency) at run time through a variable:
 * the client's type check stays independent of the server's sources (the server checks its
 * own), and src/ never reaches them.
 */
const SERVER_START: string = '@resale/server/start';

/** The server's `start`, loaded from its sources (run through tsx or Vitest). */
export async function loadStart(): Promise<Start> {
  const { start } = (await import(SERVER_START)) as { start: Start };
  return start;
}

/** The environment of the throwaway service: fixed values, so the document is the same on every run. */
export function documentServiceEnv(databasePath: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    DATABASE_PATH: databasePath,
    SECRET_KEY: 'client-generation-secret-key-0123456789abcdef',
    LOG_LEVEL: 'silent',
  };
}

/**
 * The OpenAPI document the current server sources serve, parsed.
 *
 * @example const doc = await fetchDocument(); // { openapi: '3.1.0', paths: {…}, webhooks: {…} }
 */
export async function fetchDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-client-generate-'));
  try {
    const service = await (await loadStart())(documentServiceEnv(join(dir, 'resale.sqlite')));
    try {
      const res = await fetch(`http://127.0.0.1:${service.port}/v1/openapi.json`);
      if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
