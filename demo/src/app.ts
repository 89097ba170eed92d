/**
 * The demo partner platform's app. The routes are JSX (routes.tsx); this module is the
 * stable import path named in the README and used by start.ts and the browser tests.
 */
export { createDemoApp, WEBHOOK_MAX_BYTES, type DemoAppOptions } from './routes.js';
