// The index service with its real worker thread and real files: snapshots written and used, every
// kind of bad snapshot refused and rebuilt, reloads swapping generations, failed reloads keeping the
// old index.
import { mkdtemp, readFile, rm, stat, utimes, writeFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { silentLogger } from '../logger.js';
import { readSnapshotHeader } from '../search/index-snapshot.js';
import type { SearchIndex } from '../search/search-index.js';
import { IndexService } from './index-service.js';
import { runInChild } from './run-in-child.js';
import type { IndexJob } from './index-job-spec.js';

interface Served {
  index: SearchIndex;
  generation: number;
}

/** The part of the holder the service writes to, recording every swap. */
function recordingSink() {
  const served: Served[] = [];
  let failure: Error | undefined;
  return {
    served,
    get failure() {
      return failure;
    },
    get current(): Served | undefined {
      return served[served.length - 1];
    },
    set({ index }: { index: SearchIndex }) {
      const next = { index, generation: served.length + 1 };
      served.push(next);
      return next;
    },
    fail(error: Error) {
      failure = error;
    },
  };
}

const QUERIES = ['lighthouse weather', 'sourdough starter', 'tomato', 'café 東京', 'storm flags barometer'];
const hitsOf = (index: SearchIndex) => QUERIES.map((q) => index.search(q, { topK: 10 }).map((h) => JSON.parse(JSON.stringify(h)) as unknown));

let dir: string;
let corpus: string;
let indexFile: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-index-service-'));
  corpus = join(dir, 'corpus');
  indexFile = join(dir, 'index.snapshot');
  await writeCorpusFiles(corpus);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const job = (extra: Partial<IndexJob> = {}): IndexJob => ({ corpusRoot: corpus, options: {}, engine: 'engine-a', indexFile, ...extra });

async function boot(extra: Partial<IndexJob> = {}) {
  const sink = recordingSink();
  const service = new IndexService({ holder: sink, job: job(extra), logger: silentLogger });
  const record = await service.start();
  return { sink, service, record };
}

describe('IndexService', () => {
  describe('start', () => {
    it('builds in a child process, writes the snapshot, and a second boot serves the snapshot with identical results', async () => {
      const first = await boot();
      expect(first.record).toMatchObject({ outcome: 'ok', origin: 'build', generation: 1 });
      expect((await stat(indexFile)).size).toBeGreaterThan(1000);
      const second = await boot();
      expect(second.record).toMatchObject({ outcome: 'ok', origin: 'snapshot', generation: 1 });
      expect(second.record.reason).toBeUndefined();
      expect(hitsOf(second.sink.current!.index)).toEqual(hitsOf(first.sink.current!.index));
      expect(second.sink.current!.index.listDocuments()).toEqual(first.sink.current!.index.listDocuments());
    });

    it('serves a fresh build without INDEX_FILE and writes nothing', async () => {
      const { record, sink } = await boot({ indexFile: undefined });
      expect(record).toMatchObject({ outcome: 'ok', origin: 'build' });
      await expect(stat(indexFile)).rejects.toThrow();
      expect(sink.current!.index.search('sourdough')[0]?.source).toBe('guides/baking.md');
    });

    it('fails the sink and rejects when the corpus has no documents', async () => {
      const sink = recordingSink();
      const empty = join(dir, 'empty');
      await writeCorpusFiles(empty, { 'image.png': Buffer.from([0x89, 0x50, 0, 0]) });
      const service = new IndexService({ holder: sink, job: job({ corpusRoot: empty }), logger: silentLogger });
      await expect(service.start()).rejects.toThrow(/no documents/);
      expect(sink.failure?.message).toMatch(/CORPUS_DIR/);
      expect(service.status()).toMatchObject({ generation: 0, last: { outcome: 'failed', code: 'no_documents' } });
    });
  });

  describe('bad snapshots', () => {
    const flipByte = (at: (length: number) => number) => async () => {
      const bytes = await readFile(indexFile);
      const i = at(bytes.length);
      bytes[i] = (bytes[i] as number) ^ 0xff;
      await writeFile(indexFile, bytes);
    };
    it.each<[string, () => Promise<void>, Partial<IndexJob>, string]>([
      ['a truncated file', async () => writeFile(indexFile, (await readFile(indexFile)).subarray(0, 5000)), {}, 'truncated'],
      ['a file cut inside its header', async () => writeFile(indexFile, (await readFile(indexFile)).subarray(0, 30)), {}, 'truncated'],
      ['a flipped byte in the index (checksum)', flipByte((n) => Math.floor(n / 2)), {}, 'corrupt'],
      ['a flipped byte in the digest', flipByte((n) => n - 1), {}, 'corrupt'],
      [
        'a damaged corpus manifest',
        async () => {
          const bytes = await readFile(indexFile);
          const manifest = readSnapshotHeader(bytes).sections.find((s) => s.name === 'manifest')!;
          bytes[manifest.offset] = (bytes[manifest.offset] as number) ^ 0xff;
          await writeFile(indexFile, bytes);
        },
        {},
        'corrupt',
      ],
      ['bytes appended', async () => writeFile(indexFile, Buffer.concat([await readFile(indexFile), Buffer.from('junk')])), {}, 'corrupt'],
      ['another file altogether', async () => writeFile(indexFile, '# not a snapshot\n'.repeat(20)), {}, 'not_a_snapshot'],
      ['a snapshot from another engine version', async () => {}, { engine: 'engine-b' }, 'foreign_version'],
      ['a snapshot built with other index options', async () => {}, { options: { chunkWords: 60, overlapWords: 10 } }, 'options_changed'],
      ['a corpus with a file added', async () => writeFile(join(corpus, 'new.md'), '# New\n\nA new harbour document.\n'), {}, 'corpus_changed'],
      ['a corpus with a file removed', async () => unlink(join(corpus, 'guides/gardening.md')), {}, 'corpus_changed'],
      [
        'a corpus with a file edited to the same size',
        async () => {
          const path = join(corpus, 'guides/gardening.md');
          const text = await readFile(path, 'utf8');
          await writeFile(path, text.replace('tomatoes', 'potatoes'));
          const later = new Date(Date.now() + 5000);
          await utimes(path, later, later);
        },
        {},
        'corpus_changed',
      ],
    ])('refuses %s, says why, rebuilds and rewrites a good snapshot', async (_name, damage, change, code) => {
      await boot();
      await damage();
      const { record, sink } = await boot(change);
      expect(record).toMatchObject({ outcome: 'ok', origin: 'build' });
      expect(record.reason).toEqual(expect.any(String));
      const sinkIndex = sink.current!.index;
      expect(sinkIndex.stats.documents).toBeGreaterThan(0);
      // The rewritten snapshot is good: the next boot with the same settings uses it.
      const again = await boot(change);
      expect(again.record.origin).toBe('snapshot');
      expect(record.snapshotRefused).toBe(code);
    });

    it('serves the new content of a same-size edit whose modification time was put back (cp -p, rsync -t, tar)', async () => {
      const path = join(corpus, 'guides/gardening.md');
      // A whole second, so that putting it back is exact (a Date holds no nanoseconds).
      const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      await utimes(path, time, time);
      await boot();
      const text = await readFile(path, 'utf8');
      expect(text).toContain('tomatoes');
      await writeFile(path, text.replace('tomatoes', 'potatoes'));
      await utimes(path, time, time);
      expect((await stat(path)).mtimeMs).toBe(time.getTime());
      const { record, sink } = await boot();
      expect(record).toMatchObject({ outcome: 'ok', origin: 'build', snapshotRefused: 'corpus_changed' });
      expect(sink.current!.index.search('potatoes')[0]?.chunkId).toMatch(/^guides\/gardening\.md#/);
    });

    it('keeps using the snapshot when a file was only touched (time changed, content not)', async () => {
      await boot();
      const later = new Date(Date.now() + 5000);
      await utimes(join(corpus, 'lighthouse.md'), later, later);
      expect((await boot()).record.origin).toBe('snapshot');
    });
  });

  describe('reload', () => {
    it('swaps in a new generation that sees the change, and keeps chunk ids of unchanged documents', async () => {
      const { service, sink } = await boot();
      const before = sink.current!.index;
      await writeFile(join(corpus, 'harbour.md'), '# Harbour\n\nThe harbour master keeps the tide tables.\n');
      const record = await service.reload('test');
      expect(record).toMatchObject({ outcome: 'ok', origin: 'build', generation: 2 });
      const after = sink.current!.index;
      expect(after.search('tide tables')[0]?.chunkId).toBe('harbour.md#0');
      expect(before.search('tide tables')).toEqual([]);
      for (const query of ['lighthouse weather', 'sourdough']) {
        expect(after.search(query).map((h) => h.chunkId)).toEqual(before.search(query).map((h) => h.chunkId));
      }
    });

    it('keeps the old index serving when the rebuild fails, and records why', async () => {
      const { service, sink } = await boot({ indexFile: undefined });
      await rm(corpus, { recursive: true, force: true });
      const record = await service.reload('test');
      expect(record).toMatchObject({ outcome: 'failed', generation: 1, code: 'not_found' });
      expect(sink.served).toHaveLength(1);
      expect(sink.current!.index.search('sourdough')[0]?.source).toBe('guides/baking.md');
      expect(service.status()).toMatchObject({ generation: 1, reloading: false, counts: { ok: 1, failed: 1 } });
    });

    it('shows the progress of the build under way in its status, and none once it is over', async () => {
      const statuses: Array<ReturnType<IndexService['status']>> = [];
      const service: IndexService = new IndexService({
        holder: recordingSink(),
        job: job({ indexFile: undefined }),
        logger: silentLogger,
        run: async (next, onProgress) => {
          statuses.push(service.status());
          onProgress({ phase: 'read', done: 2, total: 4, read: 3 });
          statuses.push(service.status());
          return runInChild(next);
        },
      });
      await service.start();
      expect(statuses).toMatchObject([
        { reloading: true, progress: { phase: 'starting', done: 0, total: 0 } },
        { reloading: true, progress: { phase: 'read', done: 2, total: 4, read: 3 } },
      ]);
      expect(service.status()).toMatchObject({ reloading: false, generation: 1 });
      expect(service.status()).not.toHaveProperty('progress');
    });

    it('folds reloads asked for while one runs into a single follow-up', async () => {
      const { service, sink } = await boot({ indexFile: undefined });
      const results = await Promise.all([service.reload('a'), service.reload('b'), service.reload('c')]);
      expect(results.map((r) => r.generation)).toEqual([2, 3, 3]);
      expect(sink.served).toHaveLength(3);
    });
  });
});

