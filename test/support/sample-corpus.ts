// A small corpus written by the tests: a few short documents, one long enough for several chunks,
// a nested folder, and files the loader must skip.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const paragraph = (topic: string, n: number) =>
  `Paragraph ${n} about ${topic}. The lighthouse keeper logs the weather every hour, trims the wick, ` +
  `polishes the lens and records passing ships in the ledger. Storm warnings are raised with flags ` +
  `and a bell when the barometer falls quickly. Supplies arrive by boat each fortnight.\n\n`;

export const LONG_DOC = `# Lighthouse operations\n\n${Array.from({ length: 14 }, (_, i) => `## Duty ${i + 1}\n\n${paragraph('duties', i + 1)}`).join('')}`;

export const SAMPLE_FILES: Record<string, string | Buffer> = {
  'lighthouse.md': LONG_DOC,
  'guides/baking.md': '---\ntitle: Sourdough baking\n---\n# Starter\n\nFeed the sourdough starter with flour and water daily. Keep it warm.\n\n# Bake\n\nBake the loaf in a preheated dutch oven at 250 degrees for forty minutes.\n',
  'guides/gardening.md': '# Tomato gardening\n\nWater tomatoes deeply twice a week and stake them early. Pinch the side shoots.\n',
  'notes/emoji-😀.txt': 'Unicode notes: café, naïve, 東京, and an emoji 😀 in the middle of the text.\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
};

export const SAMPLE_SOURCES = ['guides/baking.md', 'guides/gardening.md', 'lighthouse.md', 'notes/emoji-😀.txt'];

/** Writes `files` (path → content, nested folders allowed) under `dir`. */
export async function writeCorpusFiles(dir: string, files: Record<string, string | Buffer> = SAMPLE_FILES): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

export interface TempCorpus {
  /** The temp folder: the corpus is its `corpus/` subfolder, and anything written beside it is outside the corpus. */
  workDir: string;
  corpusDir: string;
  remove(): Promise<void>;
}

/** Writes `files` into `corpus/` of a fresh temp folder, and `beside` (path → content) next to that folder. */
export async function writeTempCorpus(files: Record<string, string | Buffer> = SAMPLE_FILES, beside: Record<string, string> = {}): Promise<TempCorpus> {
  const workDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-test-'));
  const corpusDir = join(workDir, 'corpus');
  await writeCorpusFiles(corpusDir, files);
  await writeCorpusFiles(workDir, beside);
  return { workDir, corpusDir, remove: () => rm(workDir, { recursive: true, force: true }) };
}
