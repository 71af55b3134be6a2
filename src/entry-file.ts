// Which file a worker thread or a child process starts. Compiled, it is the .js file beside the
// caller; run from TypeScript sources (tests, `npm run dev`), the .ts file, which then needs tsx's
// loader in that thread or process.
import { Worker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';

export function entryFile(callerUrl: string, name: string): { url: URL; fromSources: boolean } {
  const fromSources = callerUrl.endsWith('.ts');
  return { url: new URL(`./${name}${fromSources ? '.ts' : '.js'}`, callerUrl), fromSources };
}

/**
 * A function that starts worker threads on the entry file `name` beside the caller. From sources,
 * tsx's loader must be registered before the .ts entry loads (`--import tsx` in a worker's execArgv
 * is not in place yet when the entry loads), so a line of script does both; tsx is resolved from this
 * project, not from the worker's working folder.
 */
export function workerStarter(callerUrl: string, name: string): (options: WorkerOptions) => Worker {
  const { url, fromSources } = entryFile(callerUrl, name);
  if (!fromSources) return (options) => new Worker(url, options);
  const script = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return (options) => new Worker(script, { ...options, eval: true });
}
