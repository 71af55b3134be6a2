// The read-ahead threads of a large load: they read the files in front of the loader (so its reads
// find them cached), no further than their limits in files and in bytes, never a file the loader
// would refuse, and they end when told, even where a file would block an open; a process whose only
// work is the load lives until they have.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PREFETCH_MIN_FILES, startFilePrefetch } from './file-prefetch.js';
import type { FilePrefetch, PrefetchOptions } from './file-prefetch.js';
import { loadCorpus } from './load-corpus.js';
import { walkCorpus, type FileCandidate } from './walk-corpus.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** Large enough that the threads' own start (a few MB of reads under tsx) is small beside what they read. */
const FILE_BYTES = 32 * KiB;
/** The large files of the tests: each read would show well above a test's bound. */
const BIG_BYTES = 8 * MiB;
const MAX_FILE_BYTES = 10 * MiB;
const onLinux = existsSync('/proc/self/io');

let base: string;
let root: string;
let prefetch: FilePrefetch | undefined;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'corpus-prefetch-'));
  root = join(base, 'root');
  await mkdir(root);
});
afterEach(async () => {
  await prefetch?.stop();
  prefetch = undefined;
  await rm(base, { recursive: true, force: true });
});

/** `count` Markdown files of FILE_BYTES under the root, walked as the loader walks them. */
async function smallFiles(count: number): Promise<FileCandidate[]> {
  const body = `# note\n\n${'word '.repeat(FILE_BYTES / 5)}`.slice(0, FILE_BYTES);
  await Promise.all(Array.from({ length: count }, (_, i) => writeFile(join(root, `${String(i).padStart(5, '0')}.md`), body)));
  return (await walkCorpus(root)).files;
}

/** Bytes this process has read through read calls, all threads together (Linux). */
const bytesRead = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);

/**
 * `bytesRead()` once 300 ms pass with less than a file read (reading /proc/self/io counts too): the
 * threads have read all they may. Only ever waits longer on a slow machine; a thread that read past
 * its limit would show by then.
 */
async function settled(): Promise<number> {
  let last = bytesRead();
  for (;;) {
    await new Promise((done) => setTimeout(done, 300));
    const now = bytesRead();
    if (now - last < FILE_BYTES) return now;
    last = now;
  }
}

/** Starts the threads on `list` with the loader at its start; resolves once they have read `expected` bytes, with what they read once settled. */
async function readAhead(list: FileCandidate[], expected: number, options: PrefetchOptions): Promise<number> {
  const before = bytesRead();
  prefetch = startFilePrefetch(list, MAX_FILE_BYTES, options);
  expect(prefetch).toBeDefined();
  prefetch?.advance(0);
  await vi.waitFor(() => expect(bytesRead() - before).toBeGreaterThanOrEqual(expected), { timeout: 20_000, interval: 20 });
  return (await settled()) - before;
}

async function candidate(path: string, identityOf = path): Promise<FileCandidate> {
  const info = await stat(identityOf);
  return { absolutePath: path, identity: { dev: info.dev, ino: info.ino }, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, source: 'x.md', format: 'markdown' };
}

describe('startFilePrefetch', () => {
  it('starts nothing for a short list, and refuses limits below 1', async () => {
    const files = await smallFiles(3);
    expect(startFilePrefetch(files, MAX_FILE_BYTES)).toBeUndefined();
    expect(() => startFilePrefetch(files, MAX_FILE_BYTES, { ahead: 0 })).toThrow(/ahead must be a whole number of at least 1, not 0/);
  });

  it.runIf(onLinux)(
    'reads the files in front of the loader up to its limit in files, and not one the loader would refuse: a link, a file replaced since the walk, one over the size limit',
    async () => {
      const files = await smallFiles(PREFETCH_MIN_FILES);
      const outside = join(base, 'outside.md');
      await writeFile(outside, Buffer.alloc(BIG_BYTES, 'a'));
      await symlink(outside, join(root, 'link.md'));
      const replaced = join(root, 'replaced.md');
      await writeFile(replaced, 'before');
      const walked = await candidate(replaced);
      await rm(replaced);
      await writeFile(join(base, 'holder.md'), 'keeps the old inode from being reused');
      await writeFile(replaced, Buffer.alloc(BIG_BYTES, 'b'));
      const oversized = join(root, 'oversized.md');
      await writeFile(oversized, Buffer.alloc(MAX_FILE_BYTES + MiB, 'c'));
      const list = [await candidate(join(root, 'link.md'), outside), walked, await candidate(oversized), ...files];
      // 256 files ahead of a loader at 0: the three refused ones, then 253 of FILE_BYTES.
      const read = await readAhead(list, 250 * FILE_BYTES, { ahead: 256, aheadBytes: 1024 * MiB });
      // Not the rest of the list (64 MiB), and no large file (8 MiB and more each).
      expect(read).toBeLessThan(16 * MiB);
    },
    30_000,
  );

  it.runIf(onLinux)(
    'reads no more bytes ahead than its limit in bytes',
    async () => {
      const read = await readAhead(await smallFiles(PREFETCH_MIN_FILES), 4 * MiB - 2 * FILE_BYTES, { ahead: 100_000, aheadBytes: 4 * MiB });
      // Not the rest of the list (64 MiB).
      expect(read).toBeLessThan(16 * MiB);
    },
    30_000,
  );

  it.runIf(onLinux)(
    'goes past a FIFO that would block an open for reading, and ends when told',
    async () => {
      const files = await smallFiles(PREFETCH_MIN_FILES);
      const fifo = join(base, 'pipe.md');
      execFileSync('mkfifo', [fifo]);
      // One thread, whose first file is the FIFO: reading the files after it means it went past.
      await readAhead([await candidate(fifo), ...files], 60 * FILE_BYTES, { threads: 1, ahead: 64 });
      await prefetch?.stop();
    },
    30_000,
  );

  it('keeps a process whose only work is the load alive until the threads have ended', async () => {
    await smallFiles(PREFETCH_MIN_FILES);
    const module = (name: string): string => JSON.stringify(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)));
    // Stopped at once, the threads are still running: unless they hold the process, nothing else does,
    // and an unsettled top-level await exits with 13 (execFileSync throws).
    const script = [
      `const { startFilePrefetch } = await import(${module('file-prefetch')});`,
      `const { walkCorpus } = await import(${module('walk-corpus')});`,
      `const prefetch = startFilePrefetch((await walkCorpus(${JSON.stringify(root)})).files, ${MAX_FILE_BYTES});`,
      `prefetch.advance(0);`,
      `await prefetch.stop();`,
      `console.log('stopped');`,
    ].join('\n');
    const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(printed.trim()).toBe('stopped');
  }, 30_000);

  it('loads every document of a folder large enough to read ahead', async () => {
    await smallFiles(PREFETCH_MIN_FILES + 10);
    const corpus = await loadCorpus(root);
    expect(corpus.documents).toHaveLength(PREFETCH_MIN_FILES + 10);
    expect(corpus.documents.every((d) => d.text.startsWith('# note'))).toBe(true);
  }, 30_000);
});
