import type { AppDeps } from '../../context.js';
import { createRouter } from '../../lib/openapi.js';

/** POST /v1/rules (being written). */
export function ruleRoutes(_deps: AppDeps) {
  return createRouter();
}
