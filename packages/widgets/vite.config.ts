import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes `<file>.br` and `<file>.gz` beside every JavaScript and CSS file of the build, at
 * maximum quality (Brotli 11, gzip 9): paid once per build, not per request, and about a tenth
 * smaller than what a server compresses on the fly. The server serves them by
 * `Accept-Encoding` (packages/server/src/http/api/widgets.static.ts) and .size-limit.js
 * measures them: the budgets are the bytes a fan downloads. node:zlib rather than a plugin
 * dependency: this is all a plugin would do.
 */
function precompress(): Plugin {
  return {
    name: 'resale-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!/\.(?:js|css)$/.test(fileName)) continue;
        const source = output.type === 'chunk' ? Buffer.from(output.code) : Buffer.from(output.source);
        const path = join(dir, fileName);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(source, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: source.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(source, { level: 9 }));
      }
    },
  };
}

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
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [precompress()],
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    minify: true,
    sourcemap: false,
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
