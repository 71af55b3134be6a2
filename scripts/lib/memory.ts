/**
 * `process.memoryUsage()` once the heap has settled: `rounds` full collections, each followed by a
 * 200 ms wait in which V8 frees the backing stores it released in the background, then a last
 * collection. Needs `node --expose-gc`; without it, only the waits.
 */
export async function settledMemoryUsage(rounds = 1): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let round = 0; round < rounds; round += 1) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  gc?.();
  return process.memoryUsage();
}
