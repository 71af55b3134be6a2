// A snapshot boot serves its texts and document records from the file: the same hits, snippets and
// documents as the index held in memory, and never a byte of a file changed or cut short after the
// boot checked it: such a read fails with a clear error, and the index service rebuilds.
import { open, mkdtemp, readFile, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../scripts/lib/stats.js';
import { writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { silentLogger } from '../logger.js';
import { decodeIndexSnapshot, readSnapshotHeader, SnapshotError } from '../search/index-snapshot.js';
import type { SearchIndex } from '../search/search-index.js';
import { runIndexJob } from './index-job.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { IndexService, SNAPSHOT_DAMAGED } from './index-service.js';
import { produceIndex } from './produce-index.js';
import { BLOCK_BYTES } from './snapshot-digest.js';
import type { SnapshotInFile } from './snapshot-in-file.js';

const TOPICS = ['harbour', 'lantern', 'granite', 'orchard', 'glacier', 'meadow', 'copper', 'violet'];
/** Enough documents that the texts span many CRC blocks. */
const FILES = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length] as string;
    const body = Array.from({ length: 30 }, (_, p) => `The ${topic} record ${i} line ${p} mentions ${TOPICS[(i + p) % TOPICS.length]} and tide ${(i * 31 + p) % 97}.`).join(' ');
    return [`notes/${String(i).padStart(2, '0')}-${topic}.md`, `# ${topic} ${i}\n\n${body}\n`];
  }),
);

let dir: string;
let job: IndexJob;
let file: Buffer;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-snapshot-in-file-'));
  await writeCorpusFiles(join(dir, 'corpus'), FILES);
  job = { corpusRoot: join(dir, 'corpus'), options: {}, engine: 'engine-a', indexFile: join(dir, 'index.snapshot') };
  expect((await runIndexJob(job)).origin).toBe('build');
  file = await readFile(job.indexFile as string);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noBuild = (): ((job: IndexJob) => Promise<IndexJobResult>) => () => Promise.reject(new Error('no build expected'));

/** The index as a snapshot boot serves it (texts in the file), and the same snapshot held in memory. */
async function boot(): Promise<{ served: SearchIndex; source: SnapshotInFile; inMemory: SearchIndex }> {
  const result = await produceIndex(job, { build: noBuild() });
  const source = result.source as SnapshotInFile;
  expect(source).toBeDefined();
  return { served: decodeIndexSnapshot(source).index, source, inMemory: decodeIndexSnapshot(file.subarray(0, file.length - 32)).index };
}

/** Where document `source`'s text starts in the file. */
function textPosition(source: SnapshotInFile, inMemory: SearchIndex, path: string): number {
  const section = source.header.sections.find((s) => s.name === 'text');
  let at = section?.offset as number;
  for (const d of inMemory.listDocuments()) {
    if (d.source === path) return at;
    at += Buffer.byteLength(inMemory.getDocument(d.source)?.text as string);
  }
  throw new Error(`no ${path}`);
}

async function flipByte(position: number): Promise<void> {
  // In place, as a disk or a hand would: the same file, not a new one renamed over it.
  const handle = await open(job.indexFile as string, 'r+');
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, position);
    byte[0] = (byte[0] as number) ^ 0x20;
    await handle.write(byte, 0, 1, position);
  } finally {
    await handle.close();
  }
}

describe('SnapshotInFile', () => {
  it('leaves the texts and document records in the file, spanning many blocks', async () => {
    const { source } = await boot();
    expect(source.resident('text')).toBeUndefined();
    expect(source.resident('documentRecords')).toBeUndefined();
    expect(source.reader('text')).toBeDefined();
    const text = source.header.sections.find((s) => s.name === 'text');
    expect(text?.byteLength).toBeGreaterThan(4 * BLOCK_BYTES);
    expect(source.residentBytes.length).toBeLessThan(file.length - (text?.byteLength as number));
    source.close();
  });

  it('reads any range of a section as the file holds it: within a block, across blocks, longer than its buffer, empty', async () => {
    const { source } = await boot();
    const section = source.header.sections.find((s) => s.name === 'text');
    const read = source.reader('text');
    if (section === undefined || read === undefined) throw new Error('no text section in the file');
    const expected = (start: number, end: number): Buffer => file.subarray(section.offset + start, section.offset + end);
    const length = section.byteLength;
    const ranges: Array<[number, number]> = [
      [0, 10],
      [5, 12], // within the last read's blocks
      [BLOCK_BYTES - 3, BLOCK_BYTES + 3], // across a block boundary
      [0, length], // longer than the buffer a read keeps
      [7, 9], // a short read after the long one
      [length - 1, length],
      [BLOCK_BYTES, BLOCK_BYTES],
    ];
    // And a fixed pseudo-random walk, each range decoded before the next read as callers do.
    const random = seededRandom(7);
    for (let i = 0; i < 200; i += 1) {
      const start = Math.floor(random() * length);
      ranges.push([start, Math.min(length, start + Math.floor(random() * 3 * BLOCK_BYTES))]);
    }
    for (const [start, end] of ranges) expect(Buffer.from(read(start, end)).equals(expected(start, end)), `bytes ${start}–${end}`).toBe(true);
    source.close();
  });

  it('serves the same hits, snippets, chunks, listing and documents as the index held in memory', async () => {
    const { served, source, inMemory } = await boot();
    expect(served.listDocuments()).toEqual(inMemory.listDocuments());
    for (const query of [...TOPICS, 'tide 42', 'record 17 line 3', 'glacier meadow copper']) {
      expect(served.search(query, { topK: 20 })).toEqual(inMemory.search(query, { topK: 20 }));
    }
    // Read in an order that is not the file's, so reads land outside the last one's window.
    for (const { source: path } of [...inMemory.listDocuments()].reverse()) {
      expect(served.getDocument(path)).toEqual(inMemory.getDocument(path));
    }
    source.close();
  });

  it('refuses a text changed in place after the boot: the read fails clearly, never returns the changed text, and is reported once', async () => {
    const { served, source, inMemory } = await boot();
    const damaged = vi.fn();
    source.onDamage(damaged);
    const path = inMemory.listDocuments()[41]?.source as string;
    await flipByte(textPosition(source, inMemory, path) + 10);
    expect(() => served.getDocument(path)).toThrow(SnapshotError);
    expect(() => served.getDocument(path)).toThrow(/changed or damaged after it was checked: bytes \d+–\d+ of its "text" section/);
    expect(() => served.getDocument(path)).toThrow(expect.objectContaining({ code: 'damaged' }));
    // Nothing more is served from the file, not even blocks that still read as they did.
    expect(() => served.getDocument('notes/00-harbour.md')).toThrow(SnapshotError);
    expect(() => served.search('orchard', { topK: 5 })).toThrow(SnapshotError);
    expect(damaged).toHaveBeenCalledTimes(1);
    source.close();
  });

  it('refuses a document record changed in place after the boot', async () => {
    const { served, source } = await boot();
    const records = source.header.sections.find((s) => s.name === 'documentRecords');
    await flipByte((records?.offset as number) + 3);
    expect(() => served.listDocuments()).toThrow(/"documentRecords" section/);
    source.close();
  });

  it('refuses a file cut short after the boot', async () => {
    const { served, source, inMemory } = await boot();
    const path = inMemory.listDocuments()[59]?.source as string;
    await truncate(job.indexFile as string, textPosition(source, inMemory, path) - 100);
    expect(() => served.getDocument(path)).toThrow(/changed or damaged after it was checked.*cut short/);
    source.close();
  });
});

describe('IndexService, serving from a snapshot file', () => {
  it('rebuilds when the file is damaged while it serves, and serves the rebuilt index from memory', async () => {
    const served: SearchIndex[] = [];
    const runs: string[] = [];
    const service = new IndexService({
      holder: {
        set({ index }) {
          served.push(index);
          return { generation: served.length };
        },
        fail() {},
      },
      job,
      logger: silentLogger,
      // The boot checks in a worker, as main.ts does; later runs build in this process.
      run: (next) => {
        runs.push(runs.length === 0 ? 'boot' : 'reload');
        return runs.length === 1 ? produceIndex(next, { build: noBuild() }) : runIndexJob(next);
      },
    });
    const reloads: Array<{ trigger: string; outcome: string }> = [];
    service.onReload((record) => reloads.push(record));
    await service.start();
    const first = served[0] as SearchIndex;
    const inMemory = decodeIndexSnapshot(file.subarray(0, file.length - 32)).index;
    // The last document: far from any block a read at boot may have kept (and verified).
    const path = inMemory.listDocuments()[59]?.source as string;
    const text = inMemory.getDocument(path)?.text as string;
    const section = readSectionOffset(file, 'text');
    let at = section;
    for (const d of inMemory.listDocuments()) {
      if (d.source === path) break;
      at += Buffer.byteLength(inMemory.getDocument(d.source)?.text as string);
    }
    await flipByte(at + 5);
    expect(() => first.getDocument(path)).toThrow(SnapshotError);
    await vi.waitFor(() => expect(reloads).toHaveLength(2));
    expect(reloads[1]).toMatchObject({ trigger: SNAPSHOT_DAMAGED, outcome: 'ok', origin: 'build', snapshotRefused: 'corrupt' });
    expect(served[1]?.getDocument(path)?.text).toBe(text);
  });
});

function readSectionOffset(bytes: Buffer, name: string): number {
  return readSnapshotHeader(bytes).sections.find((s) => s.name === name)?.offset as number;
}
