// How the server's first index is produced: a matching snapshot is checked in a worker thread and used
// with no build process; a refused one is built once, by a build told why, which does not read the
// snapshot again; a check that only file contents could decide, or that cannot run at all, is left to
// the build process, which checks fully: never a failed boot, never a good snapshot thrown away.
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SAMPLE_SOURCES, writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { decodeIndexSnapshot } from '../search/index-snapshot.js';
import { runIndexJob } from './index-job.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { checkSnapshotInWorker, produceIndex } from './produce-index.js';
import { startCheckThread } from './snapshot-check-thread.js';
import { SnapshotInFile } from './snapshot-in-file.js';
import { snapshotExtents } from './snapshot-digest.js';

let dir: string;
let job: IndexJob;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-produce-index-'));
  await writeCorpusFiles(join(dir, 'corpus'));
  job = { corpusRoot: join(dir, 'corpus'), options: {}, engine: 'engine-a', indexFile: join(dir, 'index.snapshot') };
  // The snapshot the tests start from, built and written in this process.
  expect((await runIndexJob(job)).origin).toBe('build');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sourcesOf = (bytes: Uint8Array) =>
  decodeIndexSnapshot(bytes)
    .index.listDocuments()
    .map((d) => d.source);
const noBuild = () => vi.fn<(job: IndexJob) => Promise<IndexJobResult>>(() => Promise.reject(new Error('no build expected')));

describe('produceIndex', () => {
  it('serves a matching snapshot, checked in a worker, without starting a build', async () => {
    const build = noBuild();
    const result = await produceIndex(job, { build });
    expect(build).not.toHaveBeenCalled();
    expect(result.origin).toBe('snapshot');
    const file = await readFile(job.indexFile as string);
    // The index is served from the file: its resident part handed over from the worker, not rebuilt,
    // in the very buffer the worker read it into (shared, not copied); the texts and records left in
    // the file, read through the descriptor the server opened.
    const source = result.source as SnapshotInFile;
    expect(source).toBeDefined();
    expect(result.bytes).toBe(source.residentBytes);
    expect(result.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const { extents } = snapshotExtents(source.header);
    for (const extent of extents) {
      if ('at' in extent) expect(Buffer.from(result.bytes.subarray(extent.at, extent.at + extent.to - extent.from)).equals(file.subarray(extent.from, extent.to))).toBe(true);
    }
    expect(result.bytes.length).toBeLessThan(file.length - 32);
    const served = decodeIndexSnapshot(source).index;
    const inMemory = decodeIndexSnapshot(file.subarray(0, file.length - 32)).index;
    expect(served.listDocuments()).toEqual(inMemory.listDocuments());
    expect(served.listDocuments().map((d) => d.source)).toEqual(SAMPLE_SOURCES);
    for (const { source: path } of inMemory.listDocuments()) expect(served.getDocument(path)).toEqual(inMemory.getDocument(path));
    source.close();
  });

  it('never serves a snapshot whose bytes were damaged after it was written: the checksum refuses it and the build runs', async () => {
    const file = await readFile(job.indexFile as string);
    // One byte of the document texts, near the end: the header and every section still read.
    file[file.length - 40] = (file[file.length - 40] as number) ^ 0x20;
    await writeFile(job.indexFile as string, file);
    await expect(checkSnapshotInWorker(job)).resolves.toMatchObject({ refused: { code: 'corrupt', reason: expect.stringMatching(/fails its checksum/) } });
    const build = vi.fn((next: IndexJob) => runIndexJob(next));
    const result = await produceIndex(job, { build });
    expect(build).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ origin: 'build', refused: { code: 'corrupt' } });
  });

  it('builds once when the snapshot is refused, telling the build why', async () => {
    await writeFile(join(dir, 'corpus', 'added.md'), '# Added\n\nA document the snapshot has never seen.\n');
    const build = vi.fn((next: IndexJob) => runIndexJob(next));
    const result = await produceIndex(job, { build });
    expect(build).toHaveBeenCalledTimes(1);
    expect(build.mock.calls[0]?.[0].snapshotRefused).toMatchObject({ code: 'corpus_changed', reason: expect.stringMatching(/1 added \("added\.md"\)/) });
    expect(result).toMatchObject({ origin: 'build', refused: { code: 'corpus_changed' } });
    expect(sourcesOf(result.bytes)).toContain('added.md');
  });

  it('uses the check it is given instead of starting another', async () => {
    const check = checkSnapshotInWorker(job);
    await check;
    await writeFile(job.indexFile as string, 'not a snapshot any more');
    const result = await produceIndex(job, { check, build: noBuild() });
    // A fresh check would now refuse the file; the one given had read it whole before.
    expect(result.origin).toBe('snapshot');
  });

  it('leaves a file touched since the snapshot (new time, same size) to the build process to check', async () => {
    const later = new Date(Date.now() + 60_000);
    await utimes(join(dir, 'corpus', 'lighthouse.md'), later, later);
    expect(await checkSnapshotInWorker(job)).toMatchObject({ undecided: expect.stringMatching(/"lighthouse\.md" has a new time or inode/) });
    const build = vi.fn((next: IndexJob) => runIndexJob(next));
    const result = await produceIndex(job, { build });
    // Not refused: the build process checks it fully, reads the file, and serves the snapshot.
    expect(build.mock.calls[0]?.[0].snapshotRefused).toBeUndefined();
    expect(result.origin).toBe('snapshot');
  });
});

describe('runIndexJob', () => {
  it('does not read a snapshot the caller has already refused', async () => {
    const result = await runIndexJob({ ...job, snapshotRefused: { code: 'corrupt', reason: 'refused by the caller' } });
    // The snapshot on disk is intact and matches: only a job that skipped it builds.
    expect(result).toMatchObject({ origin: 'build', refused: { code: 'corrupt', reason: 'refused by the caller' } });
  });
});

describe('checkSnapshotInWorker', () => {
  it('answers undecided, never a rejection, when the worker cannot run, and the build then checks', async () => {
    const uncloneable = { ...job, options: { k1: (() => 1) as unknown as number } };
    await expect(checkSnapshotInWorker(uncloneable)).resolves.toMatchObject({ undecided: expect.stringMatching(/worker thread failed/) });
    const build = vi.fn((_: IndexJob) => Promise.reject(new Error('stop here')));
    await expect(produceIndex(uncloneable, { build })).rejects.toThrow('stop here');
    expect(build.mock.calls[0]?.[0].snapshotRefused).toBeUndefined();
  });

  it('answers why a snapshot is refused', async () => {
    await expect(checkSnapshotInWorker({ ...job, engine: 'engine-b' })).resolves.toMatchObject({ refused: { code: 'foreign_version' } });
  });

  it('uses a thread started from the paths before the job existed, and decides only once the job arrives', async () => {
    const started = startCheckThread({ corpusRoot: job.corpusRoot, indexFile: job.indexFile as string });
    // The thread reads and walks, and refuses nothing yet: a job of another engine arriving once it has
    // is still refused for it.
    await started.prepared;
    await expect(checkSnapshotInWorker({ ...job, engine: 'engine-b' }, started)).resolves.toMatchObject({ refused: { code: 'foreign_version' } });
    const again = startCheckThread({ corpusRoot: job.corpusRoot, indexFile: job.indexFile as string });
    const checked = await checkSnapshotInWorker(job, again);
    expect(checked).toMatchObject({ result: { origin: 'snapshot' } });
    if ('result' in checked) (checked.result.source as SnapshotInFile).close();
  });

  it('starts a thread of its own when the one started has other paths', async () => {
    // Started for a corpus folder that does not exist: used, it would find every file removed.
    const elsewhere = startCheckThread({ corpusRoot: join(dir, 'elsewhere'), indexFile: job.indexFile as string });
    const checked = await checkSnapshotInWorker(job, elsewhere);
    expect(checked).toMatchObject({ result: { origin: 'snapshot' } });
    if ('result' in checked) (checked.result.source as SnapshotInFile).close();
  });

  describe('the checksum, by whichever thread is free first', () => {
    // This thread never free: the worker, done with the corpus, must verify the file itself.
    const busy = { mainFree: new Promise<void>(() => undefined) };

    it('is verified by the worker when this thread is busy, and served with its texts checked on every read', async () => {
      const checked = await checkSnapshotInWorker(job, undefined, busy);
      expect(checked).toMatchObject({ result: { origin: 'snapshot', timings: { checksumMs: expect.any(Number) } } });
      if (!('result' in checked)) return;
      const source = checked.result.source as SnapshotInFile;
      const served = decodeIndexSnapshot(source).index;
      const file = await readFile(job.indexFile as string);
      const inMemory = decodeIndexSnapshot(file.subarray(0, file.length - 32)).index;
      for (const { source: path } of inMemory.listDocuments()) expect(served.getDocument(path)).toEqual(inMemory.getDocument(path));
      source.close();
    });

    it('refuses a damaged file when the worker verifies it', async () => {
      const file = await readFile(job.indexFile as string);
      file[file.length - 40] = (file[file.length - 40] as number) ^ 0x20;
      await writeFile(job.indexFile as string, file);
      await expect(checkSnapshotInWorker(job, undefined, busy)).resolves.toMatchObject({ refused: { code: 'corrupt', reason: expect.stringMatching(/fails its checksum/) } });
    });

    it('is verified once, by one thread or the other, when both may', async () => {
      const verify = vi.spyOn(SnapshotInFile.prototype, 'verify');
      const adopt = vi.spyOn(SnapshotInFile.prototype, 'adopt');
      try {
        const checked = await checkSnapshotInWorker(job);
        expect(checked).toMatchObject({ result: { origin: 'snapshot' } });
        // adopt takes either thread's verification (it is verify's own last step): once, from one of them.
        expect(adopt).toHaveBeenCalledTimes(1);
        expect(verify.mock.calls.length).toBeLessThanOrEqual(1);
        if ('result' in checked) (checked.result.source as SnapshotInFile).close();
      } finally {
        verify.mockRestore();
        adopt.mockRestore();
      }
    });
  });
});
