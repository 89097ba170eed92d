import { defineConfig } from 'vite';
import { SHARED } from './vite.shared.js';

/**
 * One ES-module build serves both audiences:
 * - partners load `dist/resale.js` with `<script type="module">` (stable name, short cache);
 * - the seat map and its SVG sanitiser are separate chunks under `dist/chunks/`, loaded with
 *   dynamic `import()` only when a page shows a map. Their names carry a content hash, so the
 *   server can cache them for a year.
 * `dist/manifest.json` maps source modules to built files for the server; every JS file has a
 * `.br` and a `.gz` beside it (see precompress).
 */
export default defineConfig({
  ...SHARED,
  build: {
    ...SHARED.build,
    emptyOutDir: true,
    manifest: 'manifest.json',
    lib: {
      entry: 'src/index.ts',
      formats: ['es'],
      fileName: () => 'resale.js',
    },
    rolldownOptions: {
      output: {
        // Lazy chunks keep their module's name (seat-map, sanitize-svg); code Rolldown splits out
        // for sharing between the entry and the map is loaded eagerly: call it core.
        chunkFileNames: (chunk) => (chunk.isDynamicEntry ? 'chunks/[name]-[hash].js' : 'chunks/core-[hash].js'),
        // Lib mode keeps whitespace and comments in ES output; the script-tag bundle wants them gone.
        minify: true,
        comments: false,
      },
    },
  },
});
