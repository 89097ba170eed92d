import { defineConfig } from 'vite';
import { SHARED } from './vite.shared.js';

/**
 * The scripts of the service's own pages (src/hosted/), not widgets: the secure ticket view's
 * rotating code. Built after the widgets into the same `dist/` (so the service serves them at
 * `/widgets/v1/<name>.js`, compressed the same way), each one file with everything it imports
 * (no chunk shared with the widgets: a page loads one script), and no manifest (the widgets'
 * `dist/manifest.json` stays theirs).
 */
export default defineConfig({
  ...SHARED,
  build: {
    ...SHARED.build,
    emptyOutDir: false,
    manifest: false,
    lib: {
      entry: { 'ticket-code': 'src/hosted/ticket-code.ts' },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: {
      output: { minify: true, comments: false },
    },
  },
});
