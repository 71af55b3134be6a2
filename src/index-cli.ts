// `npm run index -- --out <file>`: builds the index of CORPUS_DIR (with the index options of the
// environment, as the server reads them) and writes it as a snapshot file, atomically. A server
// started with INDEX_FILE=<file> on the same corpus then boots from it. The Dockerfile bakes one.
// Leaves an up-to-date file as it is. Touches the console, like main.ts. While it works it shows its
// progress on stderr (build-progress-view.ts): a bar on a terminal, else a line every
// `--progress-interval` seconds (default 5).
import { buildProgressView } from './build-progress-view.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig } from './config/load-config.js';
import { indexJobOf } from './index-job-of.js';
import { runIndexJob } from './index-service/index-job.js';
import { realPath } from './real-path.js';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--out');
  const out = at >= 0 ? process.argv[at + 1] : undefined;
  const usage = 'usage: npm run index -- --out <snapshot file> [--progress-interval <seconds>]   (the corpus is CORPUS_DIR, default ./corpus)';
  if (out === undefined || out.startsWith('--')) {
    console.error(usage);
    process.exit(2);
  }
  const every = process.argv.indexOf('--progress-interval');
  const interval = every >= 0 ? Number(process.argv[every + 1]) : 5;
  if (!(interval >= 0.001 && interval <= 3600)) {
    console.error(`corpus-mcp index: --progress-interval must be a number of seconds from 0.001 to 3600, got ${JSON.stringify(process.argv[every + 1] ?? '')}\n${usage}`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig(undefined, { cpus: 1, realPath });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`corpus-mcp index: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const job = await indexJobOf(config, out);
  const started = performance.now();
  const view = buildProgressView({ out: process.stderr, lineMs: interval * 1000, prefix: 'corpus-mcp index: ' });
  const result = await runIndexJob(job, { onProgress: (progress) => view.update(progress) }).finally(() => view.finish());
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (result.writeError !== undefined) {
    console.error(`corpus-mcp index: ${result.writeError}`);
    process.exit(1);
  }
  const what = result.origin === 'snapshot' ? 'is up to date with the corpus' : `written (${result.refused?.code === 'missing' ? 'new' : `replacing one that was ${result.refused?.code}`})`;
  console.log(`corpus-mcp index: ${job.indexFile} ${what}: ${(result.bytes.length / 1024 / 1024).toFixed(1)} MiB from ${job.corpusRoot} in ${seconds} s`);
}

main().catch((error: unknown) => {
  console.error(`corpus-mcp index: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
