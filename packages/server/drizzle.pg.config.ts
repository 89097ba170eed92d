import { defineConfig } from 'drizzle-kit';

// The PostgreSQL schema, from the same table files: they are built for the engine of the
// process (src/db/engine.ts), which a postgres URL selects. drizzle-kit only generates here;
// it connects to nothing.
process.env.DATABASE_URL = 'postgres://drizzle-kit@localhost/generate';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle-pg',
  casing: 'snake_case',
});
