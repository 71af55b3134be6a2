/**
 * Runs `task` over every item with at most `limit` in flight at once, and returns the results in
 * input order. The first failure rejects the whole call; tasks already started run to their end.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const at = next;
      next += 1;
      try {
        results[at] = await task(items[at] as T, at);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
