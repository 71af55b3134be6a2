import { Worker, type WorkerOptions } from 'node:worker_threads';
// Which file a worker thread or a child process starts. Compiled, it is the .js file beside the
// caller; run from TypeScript sources (tests, `npm run dev`), the .ts file, which then needs tsx's
// loader in that thread or process.
export function entryFile(callerUrl: string, name: string): { url: URL; fromSources: boolean } {
  const fromSources = callerUrl.endsWith('.ts');
  return { url: new URL(`./${name}${fromSources ? '.ts' : '.js'}`, callerUrl), fromSources };
}

/**
 * The worker thread that runs `name` beside the caller. From sources, tsx's loader is registered by a
 * line of script before the .ts entry is imported: `--import tsx` in a worker's execArgv is not in
 * place yet when the entry loads. tsx is resolved from this project, not the worker's working folder.
 */
export function entryWorker(callerUrl: string, name: string, options: Omit<WorkerOptions, 'eval'>): Worker {
  const { url, fromSources } = entryFile(callerUrl, name);
  if (!fromSources) return new Worker(url, options);
  const script = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(script, { ...options, eval: true });
}
