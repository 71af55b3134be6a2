// The build process on real files: the index comes back whole through the temporary folder, which is
// left empty, or over IPC when that folder cannot be written; a failed build comes back as its error.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_SOURCES, writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { decodeIndexSnapshot } from '../search/index-snapshot.js';
import type { BuildProgress } from './build-progress.js';
import { IndexJobError, runInChild } from './run-in-child.js';

let dir: string;
let temporary: string;
const savedTmpdir = process.env.TMPDIR;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-run-in-child-'));
  temporary = join(dir, 'tmp');
  await writeCorpusFiles(temporary, {});
  await writeCorpusFiles(join(dir, 'corpus'));
  process.env.TMPDIR = temporary;
});
afterEach(async () => {
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

  it('rejects with the build error and its code', async () => {
    const failure = runInChild({ ...job(), corpusRoot: join(dir, 'nowhere') });
    await expect(failure).rejects.toBeInstanceOf(IndexJobError);
    await expect(failure).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/does not exist/) });
    expect(await leftOver()).toEqual([]);
  });
});
