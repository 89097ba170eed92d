import type { AppDeps } from '../../context.js';
import { createRouter } from '../../lib/openapi.js';

export function eventRoutes(_deps: AppDeps) {
  return createRouter();
}
