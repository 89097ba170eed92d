import { defineConfig } from 'vitest/config';

/** One Vitest run for the whole repository; each workspace is a project. */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: './packages/server',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 15_000,
        },
      },
      {
        test: {
          name: 'widgets',
          root: './packages/widgets',
          include: ['src/**/*.test.ts'],
          environment: 'happy-dom',
        },
      },
      {
        test: {
          name: 'demo',
          root: './demo',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 30_000,
        },
      },
      {
        // Real Chromium against the real service and demo: one file at a time (one browser each).
        test: {
          name: 'e2e',
          root: './e2e',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
