// The read-ahead threads of a large load: they read the files in front of the loader (so its reads
// find them cached), no further than PREFETCH_AHEAD, never a file the loader would refuse, and they
// end when told, even where a file would block an open.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PREFETCH_AHEAD, PREFETCH_MIN_FILES, startFilePrefetch } from './file-prefetch.js';
import { loadCorpus } from './load-corpus.js';
import { walkCorpus, type FileCandidate } from './walk-corpus.js';

const FILE_BYTES = 4096;
const BIG_BYTES = 16 * 1024 * 1024;
const MAX_FILE_BYTES = 64 * 1024 * 1024;

let base: string;
let root: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'corpus-prefetch-'));
  root = join(base, 'root');
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** `count` small Markdown files under the root, walked as the loader walks them. */
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

async function candidate(path: string, identityOf = path): Promise<FileCandidate> {
  const info = await stat(identityOf);
  return { absolutePath: path, identity: { dev: info.dev, ino: info.ino }, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, source: 'x.md', format: 'markdown' };
}

describe('startFilePrefetch', () => {
  it('starts nothing for a short list', async () => {
    expect(startFilePrefetch(await smallFiles(3), MAX_FILE_BYTES)).toBeUndefined();
  });

  it.runIf(existsSync('/proc/self/io'))(
    'reads the files in front of the loader, up to PREFETCH_AHEAD of them, and not one it would refuse: a link, a file replaced since the walk',
    async () => {
      const files = await smallFiles(PREFETCH_MIN_FILES + PREFETCH_AHEAD);
      // Two large files the loader would not read: a link to one outside the root (opened without
      // following it) and one replaced after the walk (another inode).
      const outside = join(base, 'outside.md');
      await writeFile(outside, Buffer.alloc(BIG_BYTES, 'a'));
      await symlink(outside, join(root, 'link.md'));
      const replaced = join(root, 'replaced.md');
      await writeFile(replaced, 'before');
      const walked = await candidate(replaced);
      await rm(replaced);
      await writeFile(join(base, 'holder.md'), 'keeps the old inode from being reused');
      await writeFile(replaced, Buffer.alloc(BIG_BYTES, 'b'));
      const list = [await candidate(join(root, 'link.md'), outside), walked, ...files];

      const before = bytesRead();
      const prefetch = startFilePrefetch(list, MAX_FILE_BYTES);
      expect(prefetch).toBeDefined();
      prefetch?.advance(0);
      // The files within PREFETCH_AHEAD of the loader (which has read none) are read...
      const ahead = (PREFETCH_AHEAD - 1) * FILE_BYTES;
      await vi.waitFor(() => expect(bytesRead() - before).toBeGreaterThanOrEqual(ahead), { timeout: 20_000, interval: 20 });
      // ...and no more, however long the threads are left to run: not the rest of the list, and
      // neither large file.
      expect((await settled()) - before).toBeLessThan(ahead + PREFETCH_AHEAD * FILE_BYTES);
      await prefetch?.stop();
    },
    30_000,
  );

  it.runIf(existsSync('/proc/self/io'))('ends when told, though a file in its way is a FIFO that would block an open for reading', async () => {
    const files = await smallFiles(PREFETCH_MIN_FILES);
    const fifo = join(base, 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    const before = bytesRead();
    const prefetch = startFilePrefetch([await candidate(fifo), ...files], MAX_FILE_BYTES);
    prefetch?.advance(0);
    // The thread whose share begins with the FIFO has gone past it: every thread's files are read.
    await vi.waitFor(() => expect(bytesRead() - before).toBeGreaterThanOrEqual((PREFETCH_AHEAD - 1) * FILE_BYTES), { timeout: 20_000, interval: 20 });
    await prefetch?.stop();
  }, 30_000);

  it('lets a process whose only work is the load finish it: the threads keep it alive until they end', async () => {
    await smallFiles(PREFETCH_MIN_FILES + 10);
    const loader = fileURLToPath(new URL('./load-corpus.ts', import.meta.url));
    const script = `const { loadCorpus } = await import(${JSON.stringify(loader)}); console.log((await loadCorpus(${JSON.stringify(root)})).documents.length);`;
    // An unsettled top-level await (a load that never ended) exits with 13, and execFileSync throws.
    const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(printed.trim()).toBe(String(PREFETCH_MIN_FILES + 10));
  }, 30_000);

  it('ends with the load, whose documents are those of a load without it', async () => {
    await smallFiles(PREFETCH_MIN_FILES + 10);
    const corpus = await loadCorpus(root);
    expect(corpus.documents).toHaveLength(PREFETCH_MIN_FILES + 10);
    expect(corpus.documents[0]?.text).toContain('word word');
  });
});
