/**
 * Runs `task` over every item with at most `limit` in flight at once, and returns the results in
 * input order. On the first failure no further task starts, the signal given to the tasks is
 * aborted (so those in flight can stop retrying), and the call rejects with that first error once
 * every started task has settled: nothing it launched is still running when it returns.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const abort = new AbortController();
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const at = next;
      next += 1;
      try {
        results[at] = await task(items[at] as T, at, abort.signal);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          abort.abort();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
