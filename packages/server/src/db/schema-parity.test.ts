import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableName, is, Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from '../lib/paths.js';
import * as schema from './schema.js';

/**
 * The two committed schemas describe the same database: the latest drizzle-kit snapshot of
 * SQLite (drizzle/) and of PostgreSQL (drizzle-pg/) have the same tables, columns (and their
 * nullability and primary keys), indexes (name, columns, uniqueness) and foreign keys; and the
 * SQLite snapshot is the current table definitions (a change to a `*.table.ts` without
 * `npm run db:generate` fails here).
 */

interface Shape {
  columns: Record<string, { notNull: boolean; primaryKey: boolean }>;
  indexes: Record<string, { columns: string[]; unique: boolean }>;
  foreignKeys: string[];
  primaryKeys: string[][];
}

type Snapshot = { tables: Record<string, Record<string, any>> };

function latestSnapshot(folder: string): Snapshot {
  const dir = join(SERVER_ROOT, folder, 'meta');
  const last = readdirSync(dir).filter((f) => f.endsWith('_snapshot.json')).sort().at(-1)!;
  return JSON.parse(readFileSync(join(dir, last), 'utf8')) as Snapshot;
}

function shapes(snapshot: Snapshot): Record<string, Shape> {
  const out: Record<string, Shape> = {};
  for (const table of Object.values(snapshot.tables)) {
    out[table.name] = {
      columns: Object.fromEntries(Object.values(table.columns as Record<string, any>).map((c) => [c.name, { notNull: Boolean(c.notNull), primaryKey: Boolean(c.primaryKey) }])),
      indexes: Object.fromEntries(
        Object.values(table.indexes as Record<string, any>).map((i) => [i.name, { columns: (i.columns as (string | { expression: string })[]).map((c) => (typeof c === 'string' ? c : c.expression)), unique: Boolean(i.isUnique) }]),
      ),
      foreignKeys: Object.values(table.foreignKeys as Record<string, any>)
        .map((f) => `${(f.columnsFrom as string[]).join(',')} -> ${f.tableTo}(${(f.columnsTo as string[]).join(',')}) on delete ${f.onDelete ?? 'no action'}`)
        .sort(),
      primaryKeys: Object.values(table.compositePrimaryKeys as Record<string, any>).map((p) => (Array.isArray(p.columns) ? p.columns : String(p).split(',')) as string[]),
    };
  }
  return out;
}

describe('schema parity (SQLite and PostgreSQL)', () => {
  it('has the same tables, columns, indexes and foreign keys in both committed schemas', () => {
    const sqlite = shapes(latestSnapshot('drizzle'));
    const postgres = shapes(latestSnapshot('drizzle-pg'));
    expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort());
    for (const name of Object.keys(sqlite)) expect(postgres[name], name).toEqual(sqlite[name]);
  });

  it('has committed the current table definitions (npm run db:generate after a change)', () => {
    const committed = latestSnapshot('drizzle');
    const current = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => is(v, Table));
    expect(current.map((t) => getTableName(t)).sort()).toEqual(Object.keys(committed.tables).sort());
    for (const table of current) {
      const config = getTableConfig(table);
      const stored = committed.tables[config.name]!;
      // Column keys become snake_case names (the `casing` of drizzle.config.ts).
      expect(config.columns.map((c) => (c.keyAsName ? toSnakeCase(c.name) : c.name)).sort(), config.name).toEqual(Object.keys(stored.columns).sort());
      expect(config.indexes.map((i) => i.config.name).sort(), config.name).toEqual(Object.keys(stored.indexes).sort());
    }
  });
});
