import * as pg from 'drizzle-orm/pg-core';
import * as sqlite from 'drizzle-orm/sqlite-core';
import { ENGINE } from './engine.js';

/**
 * The column and table builders of every `*.table.ts`: one schema, built for the engine this
 * process runs on (db/engine.ts), with the column map of db/columns.ts. The types are
 * SQLite's (the embedded default, and what the services are written against); on PostgreSQL
 * the same calls build `pgTable`s, so drizzle maps values natively there (booleans, `jsonb`,
 * `bigint` numbers) and drizzle-kit generates the PostgreSQL migrations from the same files
 * (drizzle.pg.config.ts).
 *
 * | builder here                | SQLite                        | PostgreSQL                      |
 * |-----------------------------|-------------------------------|---------------------------------|
 * | `integer()`                 | `integer`                     | `bigint` (mode number)          |
 * | `integer({ mode: 'boolean' })` | `integer` 0/1              | `boolean`                       |
 * | `text()`, `text({ enum })`  | `text`                        | `text`                          |
 * | `text({ mode: 'json' })`    | `text` holding JSON           | `jsonb`                         |
 * | `real()`                    | `real`                        | `double precision`              |
 * | `dbTable`, `index`, `uniqueIndex`, `primaryKey` | sqlite-core | pg-core                    |
 */

const onPostgres = ENGINE === 'postgres';

type IntegerConfig = { mode?: 'number' | 'boolean' | 'timestamp' | 'timestamp_ms' };
type TextConfig = { mode?: 'text' | 'json'; enum?: readonly [string, ...string[]]; length?: number };

function pgInteger(config?: IntegerConfig) {
  if (config?.mode === 'boolean') return pg.boolean();
  if (config?.mode && config.mode !== 'number') throw new Error(`schema-builders: integer mode '${config.mode}' has no PostgreSQL mapping`);
  return pg.bigint({ mode: 'number' });
}

function pgText(config?: TextConfig) {
  if (config?.mode === 'json') return pg.jsonb();
  return config?.enum ? pg.text({ enum: config.enum as [string, ...string[]] }) : pg.text();
}

/** A table (`sqliteTable` or `pgTable`). */
export const dbTable = (onPostgres ? pg.pgTable : sqlite.sqliteTable) as unknown as typeof sqlite.sqliteTable;
/** An integer column: epoch milliseconds, minor units, counts; `{ mode: 'boolean' }` for flags. */
export const integer = (onPostgres ? pgInteger : sqlite.integer) as unknown as typeof sqlite.integer;
/** A text column; `{ mode: 'json' }` for JSON, `{ enum }` for states. */
export const text = (onPostgres ? pgText : sqlite.text) as unknown as typeof sqlite.text;
/** A floating-point column. */
export const real = (onPostgres ? () => pg.doublePrecision() : sqlite.real) as unknown as typeof sqlite.real;
export const index = (onPostgres ? pg.index : sqlite.index) as unknown as typeof sqlite.index;
export const uniqueIndex = (onPostgres ? pg.uniqueIndex : sqlite.uniqueIndex) as unknown as typeof sqlite.uniqueIndex;
export const primaryKey = (onPostgres ? pg.primaryKey : sqlite.primaryKey) as unknown as typeof sqlite.primaryKey;
