import { defineConfig } from 'drizzle-kit';

// The SQLite schema: the tables are built for the engine of the process (src/db/engine.ts).
delete process.env.DATABASE_URL;

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
  casing: 'snake_case',
});
