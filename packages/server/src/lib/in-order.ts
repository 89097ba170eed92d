/**
 * `items.map(fn)` for an async `fn`, one item after the other: each call starts once the one
 * before has settled, so the statements of a transaction run in the items' order (and a
 * PostgreSQL transaction, one connection, never gets two queries at once).
 *
 * @example const rows = await inOrder(ids, (id) => listings.get(tx, partnerId, id));
 */
export async function inOrder<T, R>(items: Iterable<T>, fn: (item: T, index: number) => R | Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let index = 0;
  for (const item of items) out.push(await fn(item, index++));
  return out;
}
