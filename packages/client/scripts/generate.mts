/**
 * `npm run generate -w @resale/client`: regenerates `src/schema.d.ts`, `src/operations.ts` and
 * `openapi.json` from the OpenAPI document of the server sources in this repository (started
 * in-process on a throwaway SQLite file; no running server needed). Run it after any change to
 * the server's routes or schemas, and commit the result: src/generated.test.ts fails otherwise.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderFiles } from './codegen.mjs';
import { fetchDocument } from './document.mjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

const files = await renderFiles(await fetchDocument());
for (const [path, text] of Object.entries(files)) {
  writeFileSync(`${PACKAGE}${path}`, text);
  console.log(`wrote packages/client/${path}`);
}
