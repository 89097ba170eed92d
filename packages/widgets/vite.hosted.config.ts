import { defineConfig } from 'vite';
import { SHARED } from './vite.shared.js';

/** The scripts of the service's own pages, by name (the build's `--mode`): the file under src/hosted/. */
const HOSTED: Record<string, string> = {
  // The secure ticket view's rotating code.
  'ticket-code': 'src/hosted/ticket-code.ts',
  // The venue's scanner page.
  door: 'src/hosted/door.ts',
  // Its QR decoder, loaded by it where the browser reads no QR code itself.
  'door-qr': 'src/hosted/door-qr.ts',
};

/**
 * The scripts of the service's own pages (src/hosted/), not widgets. Built after the widgets
 * into the same `dist/` (so the service serves them at `/widgets/v1/<name>.js`, compressed the
 * same way), each one file with everything it imports: one build per script (`--mode <name>`,
 * see package.json), since a build of two entries would share their common code in a chunk,
 * and a page loads one script. No manifest (the widgets' `dist/manifest.json` stays theirs).
 */
export default defineConfig(({ mode }) => {
  const entry = HOSTED[mode];
  if (!entry) throw new Error(`vite.hosted.config.ts: --mode names the script to build, one of ${Object.keys(HOSTED).join(', ')} (not ${mode})`);
  return {
    ...SHARED,
    build: {
      ...SHARED.build,
      emptyOutDir: false,
      manifest: false,
      lib: {
        entry: { [mode]: entry },
        formats: ['es'],
        fileName: (_format, name) => `${name}.js`,
      },
      rolldownOptions: {
        output: { minify: true, comments: false },
      },
    },
  };
});
