/** Returns `timed(name, work)`: runs `work` and records in `timings[name]` how long it took, in whole ms. */
export function timer(timings: Record<string, number>) {
  return async <T>(name: string, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };
}
