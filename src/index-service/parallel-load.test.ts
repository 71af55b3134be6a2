// A build whose files are read and tokenized on two threads, in runs, is the serial build: the same
// snapshot sections byte for byte, the same manifest, skips and warnings, and progress that moves
// from 'read' to 'index' with its counts never going back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FILES, writeCorpusFiles } from '../../test/support/sample-corpus.js';
import { BUILD_PHASES, type BuildProgress } from './build-progress.js';
import { runIndexJob } from './index-job.js';
import type { IndexJob } from './index-job-spec.js';

const WORDS = ['harbour', 'lantern', 'keeper', 'storm', 'ledger', 'café', 'naïve', 'tide', 'beacon', 'flare', 'signal', 'rope'];

/** Sixty documents whose vocabularies overlap in varied order, plus files every run must skip or warn about. */
function corpusFiles(): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = { ...SAMPLE_FILES };
  for (let i = 0; i < 60; i += 1) {
    const words = Array.from({ length: 40 + (i % 7) * 30 }, (_, k) => WORDS[(i * 7 + k * (i % 5 + 1)) % WORDS.length]).join(' ');
    files[`part-${i % 4}/doc-${String(i).padStart(2, '0')}.md`] = `# Notes ${i}\n\n${words}.\n\n## Section ${i % 3}\n\n${words.split(' ').reverse().join(' ')} term${i}.\n`;
  }
  files['part-1/empty.md'] = '';
  files['part-2/latin1.txt'] = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
  files['part-3/bad-front-matter.md'] = '---\ntitle: [unclosed\n---\n# Body\n\nStill indexed with a warning.\n';
  return files;
}

/** Each section's bytes by name, and the header without the fields a build's time changes. */
function sectionsOf(bytes: Uint8Array): { header: unknown; sections: Map<string, Buffer> } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerBytes = buffer.readUInt32LE(12);
  const { buildSeconds: _seconds, totalBytes: _total, sections, ...header } = JSON.parse(buffer.subarray(24, 24 + headerBytes).toString()) as {
    buildSeconds: number;
    totalBytes: number;
    sections: Array<{ name: string; offset: number; byteLength: number }>;
  };
  return { header, sections: new Map(sections.map(({ name, offset, byteLength }) => [name, buffer.subarray(offset, offset + byteLength)])) };
}

let dir: string;
let job: IndexJob;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-parallel-load-'));
  await writeCorpusFiles(join(dir, 'corpus'), corpusFiles());
  job = { corpusRoot: join(dir, 'corpus'), options: {}, engine: 'engine-a' };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runIndexJob on two threads', () => {
  it('encodes the snapshot of the serial build, section for section', async () => {
    const serial = sectionsOf((await runIndexJob(job, { parallelFrom: Number.POSITIVE_INFINITY })).bytes);
    const parallel = sectionsOf((await runIndexJob(job, { parallelFrom: 0 })).bytes);
    expect(parallel.header).toEqual(serial.header);
    expect([...parallel.sections.keys()]).toEqual([...serial.sections.keys()]);
    for (const [name, bytes] of serial.sections) expect({ name, same: parallel.sections.get(name)?.equals(bytes) }).toEqual({ name, same: true });
    const meta = (serial.header as { meta: { skipped: unknown[]; warnings: unknown[] } }).meta;
    expect(meta.skipped.length).toBeGreaterThanOrEqual(3);
    expect(meta.warnings.length).toBe(1);
  });

  it('reports files read, then documents indexed, each count rising to its total', async () => {
    const reports: BuildProgress[] = [];
    await runIndexJob(job, { parallelFrom: 0, onProgress: (progress) => reports.push(progress) });
    const phases = reports.map((r) => BUILD_PHASES.indexOf(r.phase));
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
    for (const phase of ['read', 'index'] as const) {
      const counts = reports.filter((r) => r.phase === phase);
      expect(counts.map((r) => r.done)).toEqual(counts.map((r) => r.done).sort((a, b) => a - b));
      expect(counts.at(-1)?.done).toBe(counts.at(-1)?.total);
    }
  });
});
