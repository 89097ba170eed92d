import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { BuildEnvironmentOptions, Plugin, UserConfig } from 'vite';

/**
 * Writes `<file>.br` and `<file>.gz` beside every JavaScript and CSS file of the build, at
 * maximum quality (Brotli 11, gzip 9): paid once per build, not per request, and about a tenth
 * smaller than what a server compresses on the fly. The server serves them by
 * `Accept-Encoding` (packages/server/src/http/api/widgets.static.ts) and .size-limit.js
 * measures them: the budgets are the bytes a fan downloads. node:zlib rather than a plugin
 * dependency: this is all a plugin would do.
 */
export function precompress(): Plugin {
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
 * What every build of this package shares: production code (libraries drop their development
 * branches), precompressed files, ES2022 into `dist/`, minified, without source maps.
 */
export const SHARED: Pick<UserConfig, 'define' | 'plugins'> & { build: Pick<BuildEnvironmentOptions, 'target' | 'outDir' | 'minify' | 'sourcemap'> } = {
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [precompress()],
  build: { target: 'es2022', outDir: 'dist', minify: true, sourcemap: false },
};
