// A reload reads and extracts only the files that changed since the build before it, and the index it
// assembles from kept and fresh tokens is the very index a full build of the same folder makes.
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeIndexSnapshot } from '../search/index-snapshot.js';
import type * as ExtractModule from '../corpus/extract/extract-document.js';
import { runIndexJob } from './index-job.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';

const extracted = vi.hoisted(() => ({ calls: [] as string[] }));
vi.mock('../corpus/extract/extract-document.js', async (importOriginal) => {
  const original = await importOriginal<typeof ExtractModule>();
  return {
    ...original,
    extractDocument: (...args: Parameters<typeof original.extractDocument>) => {
      const [, input] = args;
      extracted.calls.push(typeof input === 'string' ? input : new TextDecoder().decode(input));
      return original.extractDocument(...args);
    },
  };
});

let dir: string;
let corpus: string;
let job: IndexJob;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-build-reuse-'));
  corpus = join(dir, 'corpus');
  await mkdir(join(corpus, 'guides'), { recursive: true });
  await writeFile(join(corpus, 'alpha.md'), '# Alpha\n\nThe alpha reactor cools with heavy water.\n');
  await writeFile(join(corpus, 'guides/beta.md'), '# Beta\n\nDeploy the beta service behind a proxy.\n');
  await writeFile(join(corpus, 'gamma.md'), '# Gamma\n\nGamma rays and reactor shielding.\n');
  job = { corpusRoot: corpus, options: {}, engine: 'engine-a', reuseFile: join(dir, 'kept.bin') };
  extracted.calls.length = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const QUERIES = ['reactor', 'beta proxy', 'delta', 'water shielding', 'alpha'];

/** Everything the index answers and holds, build time aside. */
function served(result: IndexJobResult) {
  const { index, header } = decodeIndexSnapshot(result.bytes);
  const { buildSeconds: _, ...parts } = index.parts();
  return { parts, meta: header.meta, hits: QUERIES.map((query) => index.search(query, { topK: 10 }).map((hit) => JSON.parse(JSON.stringify(hit)) as unknown)) };
}

describe('a build reusing the one before it', () => {
  it('extracts only the changed, added files, and serves what a full build serves', async () => {
    await runIndexJob(job);
    expect(extracted.calls).toHaveLength(3);

    extracted.calls.length = 0;
    await writeFile(join(corpus, 'guides/beta.md'), '# Beta\n\nDeploy the beta service behind a reverse proxy, with a reactor.\n');
    await writeFile(join(corpus, 'delta.md'), '# Delta\n\nDelta reactor notes.\n');
    await unlink(join(corpus, 'gamma.md'));
    const reused = await runIndexJob(job);
    expect(extracted.calls.sort()).toEqual([expect.stringContaining('reverse proxy'), expect.stringContaining('Delta reactor notes')]);

    const full = await runIndexJob({ ...job, reuseFile: undefined });
    const got = served(reused);
    const sources = (hits: unknown[] | undefined) => (hits ?? []).map((hit) => (hit as { source: string }).source);
    expect(sources(got.hits[0])).toContain('guides/beta.md');
    expect(sources(got.hits.flat())).not.toContain('gamma.md');
    expect(got).toEqual(served(full));

    // Nothing changed: nothing is read again, and the index is still the same.
    extracted.calls.length = 0;
    expect(served(await runIndexJob(job))).toEqual(served(full));
    expect(extracted.calls).toEqual([]);
  });

  it('reads every file again when the options differ from those the kept tokens were made with', async () => {
    await runIndexJob(job);
    extracted.calls.length = 0;
    const other = { ...job, options: { chunkWords: 20, overlapWords: 5 } };
    const reused = await runIndexJob(other);
    expect(extracted.calls).toHaveLength(3);
    expect(served(reused)).toEqual(served(await runIndexJob({ ...other, reuseFile: undefined })));
  });
});
