let loading: Promise<unknown> | undefined;

/**
 * Loads and defines `<resale-seat-map>` once. The map (floating-ui, and DOMPurify for SVG
 * charts) stays out of the core bundle: pages without a map never download it.
 */
export function loadSeatMap(): Promise<unknown> {
  loading ??= import('../seat-map.js').catch((err: unknown) => {
    loading = undefined; // a failed chunk load may be retried later
    throw err;
  });
  return loading;
}
