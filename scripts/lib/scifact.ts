// SciFact (BEIR layout) for eval and bench: read the shared files, write the abstracts as one
// Markdown file each into a cache folder outside the repository, and score rankings.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

/** `SCIFACT_DIR` when set, else `../shared/eval/scifact` beside the project folder. */
export const SCIFACT_DIR = process.env.SCIFACT_DIR ?? resolve(import.meta.dirname, '../../../shared/eval/scifact');

export interface ScifactDoc {
  id: string;
  title: string;
  text: string;
}

export interface Claim {
  id: string;
  text: string;
  relevant: ReadonlySet<string>;
}

export function readScifactDocs(): ScifactDoc[] {
  if (!existsSync(join(SCIFACT_DIR, 'corpus.jsonl'))) {
    throw new Error(`SciFact not found at ${SCIFACT_DIR}: expected corpus.jsonl, queries-train.jsonl and qrels-train.tsv (BEIR layout) there`);
  }
  return readJsonl(join(SCIFACT_DIR, 'corpus.jsonl')).map((row) => ({
    id: String(row._id),
    title: String(row.title ?? ''),
    text: String(row.text ?? ''),
  }));
}

/** The training claims that have at least one judged-relevant document, in file order. */
export function readClaims(): Claim[] {
  const relevant = new Map<string, Set<string>>();
  const lines = readFileSync(join(SCIFACT_DIR, 'qrels-train.tsv'), 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const [query, doc, score] = line.split('\t');
    if (query === undefined || doc === undefined || Number(score) <= 0) continue;
    let set = relevant.get(query);
    if (set === undefined) relevant.set(query, (set = new Set()));
    set.add(doc);
  }
  return readJsonl(join(SCIFACT_DIR, 'queries-train.jsonl'))
    .map((row) => ({ id: String(row._id), text: String(row.text), relevant: relevant.get(String(row._id)) ?? new Set<string>() }))
    .filter((claim) => claim.relevant.size > 0);
}

/** The Markdown file a SciFact abstract becomes: `# <title>`, a blank line, the text. */
export function toMarkdown(doc: ScifactDoc): string {
  return `# ${doc.title}\n\n${doc.text}\n`;
}

/**
 * Writes `copies` copies of the corpus as `<_id>.md` (copy k > 0 under `copy-<k>/`, so every
 * source is distinct) into a cache folder under the OS temp dir, reused while the input is the same.
 */
export function writeCorpusFolder(docs: readonly ScifactDoc[], copies = 1): string {
  // The digest covers the input and the Markdown layout, so a change to either writes a fresh folder.
  const digest = createHash('sha256')
    .update(readFileSync(join(SCIFACT_DIR, 'corpus.jsonl')))
    .update(toMarkdown({ id: '', title: 'T', text: 'X' }))
    .digest('hex')
    .slice(0, 12);
  const folder = join(tmpdir(), `corpus-mcp-scifact-${digest}-x${copies}`);
  if (existsSync(join(folder, '.complete'))) return folder;
  const staging = `${folder}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  for (let copy = 0; copy < copies; copy += 1) {
    const dir = copy === 0 ? staging : join(staging, `copy-${copy}`);
    mkdirSync(dir, { recursive: true });
    for (const doc of docs) writeFileSync(join(dir, `${doc.id}.md`), toMarkdown(doc));
  }
  writeFileSync(join(staging, '.complete'), '');
  rmSync(folder, { recursive: true, force: true });
  renameSync(staging, folder);
  return folder;
}

/** The SciFact id a search hit's source stands for: its file name without `.md`. */
export function docIdOf(source: string): string {
  return basename(source, '.md');
}

/** Document ids in first-seen order: a document counts once, at the rank of its best chunk. */
export function dedupe(ids: Iterable<string>, limit: number): string[] {
  const seen = new Set<string>();
  for (const id of ids) {
    seen.add(id);
    if (seen.size >= limit) break;
  }
  return [...seen];
}

/** nDCG@k with binary relevance. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i += 1) if (relevant.has(ranked[i] as string)) dcg += 1 / Math.log2(i + 2);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i += 1) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let found = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i += 1) if (relevant.has(ranked[i] as string)) found += 1;
  return relevant.size > 0 ? found / relevant.size : 0;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Renders rows as a Markdown table with the first column left-aligned and the rest right-aligned. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function countFiles(folder: string): number {
  return readdirSync(folder, { recursive: true }).filter((f) => String(f).endsWith('.md')).length;
}

function readJsonl(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
