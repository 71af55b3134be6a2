// Which file a worker thread or a child process starts. Compiled, it is the .js file beside the
// caller; run from TypeScript sources (tests, `npm run dev`), the .ts file, which then needs tsx's
// loader in that thread or process.
export function entryFile(callerUrl: string, name: string): { url: URL; fromSources: boolean } {
  const fromSources = callerUrl.endsWith('.ts');
  return { url: new URL(`./${name}${fromSources ? '.ts' : '.js'}`, callerUrl), fromSources };
}
