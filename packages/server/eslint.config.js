// @ts-check
import tseslint from 'typescript-eslint';
import noSyncDatabaseCall from './eslint/no-sync-database-call.js';

/**
 * Typed lint of the server, run by `npm test` (`npm run lint`). Only rules that catch real
 * defects of an async data layer: a promise nobody awaits (a write that would run after its
 * transaction committed), a promise where a value is expected, an await of a non-promise, and
 * synchronous SQLite calls outside the data layer.
 */
export default tseslint.config(
  { ignores: ['dist/**', 'drizzle/**', 'eslint/**', 'eslint.config.js'] },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, resale: { rules: { 'no-sync-database-call': noSyncDatabaseCall } } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Control characters in a pattern only on purpose (middleware/control-chars.ts says so inline).
      'no-control-regex': 'error',
      'resale/no-sync-database-call': 'error',
    },
  },
  {
    // The data layer: the SQLite implementation of the seams, and the schema. Tests may look
    // at the SQLite file directly (backups, WAL, raw rows); those that run on PostgreSQL too
    // go through the same handles as the services.
    files: ['src/db/**', 'src/**/*.table.ts', 'src/**/*.sqlite.ts', 'src/**/*.test.ts', 'src/**/*.test.tsx', 'src/testing/**'],
    rules: { 'resale/no-sync-database-call': 'off' },
  },
);
