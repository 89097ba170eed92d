import { defineConfig } from 'vitest/config';

/**
 * `npm run screenshots`: not part of `npm test`. Renders every page and widget state a fan or
 * seller meets at 1280×800 and 390×844 into `screenshots/` (ignored by git), so anyone
 * reviewing a change can look. See src/screenshots.shoot.ts.
 */
export default defineConfig({
  test: {
    root: './e2e',
    include: ['src/screenshots.shoot.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
