// The build process on real files: the index comes back whole through a private folder in the
// temporary folder, which is left empty, or over IPC when that folder cannot be written; a failed
// build comes back as its error.
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SAMPLE_SOURCES, writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { decodeIndexSnapshot } from '../search/index-snapshot.js';
import type { BuildProgress } from './build-progress.js';
import { IndexJobError, runInChild } from './run-in-child.js';

// Removal made to fail on demand, to see that a failed cleanup never replaces the build's outcome.
const removal = vi.hoisted(() => ({ fails: false }));
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof FsPromises>();
  const rm: typeof real.rm = (path, options) => (removal.fails ? Promise.reject(Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' })) : real.rm(path, options));
  return { ...real, rm, default: { ...real, rm } };
});

let dir: string;
let temporary: string;
const savedTmpdir = process.env.TMPDIR;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-run-in-child-'));
  temporary = join(dir, 'tmp');
  await mkdir(temporary);
  await writeCorpusFiles(join(dir, 'corpus'));
  process.env.TMPDIR = temporary;
});
afterEach(async () => {
  removal.fails = false;
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(dir, { recursive: true, force: true });
});

/** Index files left in the temporary folder (tsx keeps a cache of its own there when tests run from sources). */
const leftOver = async () => (await readdir(temporary)).filter((name) => name.startsWith('corpus-mcp-index-'));
const job = () => ({ corpusRoot: join(dir, 'corpus'), options: {}, engine: 'engine-a' });
const sourcesOf = (bytes: Uint8Array) =>
  decodeIndexSnapshot(bytes)
    .index.listDocuments()
    .map((d) => d.source);

describe('runInChild', () => {
  it('returns the built index through the temporary folder and leaves nothing there', async () => {
    const result = await runInChild(job());
    expect(result.origin).toBe('build');
    expect(sourcesOf(result.bytes)).toEqual(SAMPLE_SOURCES);
    expect(await leftOver()).toEqual([]);
  });

  it('tells onProgress each phase of the build, with the files and documents counted out of their totals', async () => {
    const seen: BuildProgress[] = [];
    await runInChild(job(), { onProgress: (progress) => seen.push(progress) });
    // Within a phase the reports are throttled; every change of phase comes through.
    expect([...new Set(seen.map((p) => p.phase))]).toEqual(['walk', 'read', 'index', 'encode']);
    expect(seen.find((p) => p.phase === 'read')).toMatchObject({ total: SAMPLE_SOURCES.length });
    expect(seen.find((p) => p.phase === 'index')).toMatchObject({ done: 0, total: SAMPLE_SOURCES.length, chunks: 0 });
  });

  it('returns the index over IPC when the temporary folder cannot be written', async () => {
    process.env.TMPDIR = join(dir, 'missing');
    const result = await runInChild(job());
    expect(sourcesOf(result.bytes)).toEqual(SAMPLE_SOURCES);
  });

  it('hands the index over in a folder of its own, readable by its owner only', async () => {
    const modes: number[] = [];
    await runInChild(job(), {
      onProgress: () => {
        void readdir(temporary).then(async (names) => {
          for (const name of names.filter((n) => n.startsWith('corpus-mcp-index-'))) modes.push((await stat(join(temporary, name))).mode & 0o777);
        });
      },
    });
    await vi.waitFor(() => expect(modes.length).toBeGreaterThan(0));
    expect(new Set(modes)).toEqual(new Set([0o700]));
  });

  it('is not stopped by what another user left at the names this process once used', async () => {
    // Something that cannot be removed by a plain removal (another user's file in a sticky /tmp
    // cannot be either), at every name the old predictable scheme would have chosen.
    for (let n = 1; n <= 20; n += 1) {
      const planted = join(temporary, `corpus-mcp-index-${process.pid}-${n}.bin`);
      await mkdir(planted);
      await writeFile(join(planted, 'x'), 'planted');
    }
    const result = await runInChild(job());
    expect(sourcesOf(result.bytes)).toEqual(SAMPLE_SOURCES);
  });

  it('returns the index, or the build error, when removing its folder afterwards fails', async () => {
    removal.fails = true;
    const result = await runInChild(job());
    expect(sourcesOf(result.bytes)).toEqual(SAMPLE_SOURCES);
    await expect(runInChild({ ...job(), corpusRoot: join(dir, 'nowhere') })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('writes the snapshot (INDEX_FILE) owner-only (0600), even under a umask of 0', async () => {
    const indexFile = join(dir, 'index.snapshot');
    const saved = process.umask(0);
    try {
      await runInChild({ ...job(), indexFile });
    } finally {
      process.umask(saved);
    }
    expect((await stat(indexFile)).mode & 0o777).toBe(0o600);
  });

  it('rejects with the build error and its code', async () => {
    const failure = runInChild({ ...job(), corpusRoot: join(dir, 'nowhere') });
    await expect(failure).rejects.toBeInstanceOf(IndexJobError);
    await expect(failure).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/does not exist/) });
    expect(await leftOver()).toEqual([]);
  });
});
