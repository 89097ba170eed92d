/**
 * Which database this process runs on: PostgreSQL when `DATABASE_URL` is a `postgres://` or
 * `postgresql://` URL, else SQLite (`DATABASE_PATH`, the embedded default).
 *
 * Decided once, when the process starts, because the table definitions are built for their
 * engine when they are first imported (db/schema-builders.ts): a process serves one database.
 * Everything that differs between the engines reads this constant inside `src/db/`; nothing
 * outside the data layer does.
 */
export type Engine = 'sqlite' | 'postgres';

/** True for a URL that selects PostgreSQL. */
export function isPostgresUrl(url: string | undefined): url is string {
  return typeof url === 'string' && /^postgres(ql)?:\/\//i.test(url.trim());
}

export const ENGINE: Engine = isPostgresUrl(process.env.DATABASE_URL) ? 'postgres' : 'sqlite';
