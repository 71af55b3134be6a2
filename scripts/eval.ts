// Retrieval quality on SciFact's training claims, through the same loading and chunking path the
// server uses. Document-level nDCG@10 and Recall@100, on all claims and on two held-apart halves
// (even and odd claim ids), each nDCG with a 95 % bootstrap interval over claims, for the shipped
// defaults and for variants that show what each choice adds. Every variant is compared with the
// shipped defaults claim by claim: Δ and the two-sided p-value of a paired randomization test, on
// each half. A change is kept only when it wins on both halves by a margin with p < 0.05 on all claims.
// A second table walks from the shipped defaults to a plain BM25 + Porter over 180-word windows
// (scripts/lib/plain-bm25.ts), changing one factor at a time in each direction, so that the gap
// between the two can be put down to the factors that make it.
// Usage: npm run eval [-- --set k1=1.0,b=0.6]  (extra settings are evaluated as one more row)
import { loadCorpus } from '../src/corpus/load-corpus.js';
import { SearchIndex, type SearchHit, type SearchIndexOptions } from '../src/search/search-index.js';
import { docIdOf, mean, ndcgAt, readClaims, readScifactDocs, recallAt, table, writeCorpusFolder, type Claim } from './lib/scifact.js';
import { ENGINE_REFERENCE, PLAIN_REFERENCE, ReferenceRanker, type ReferenceOptions } from './lib/plain-bm25.js';
import { bootstrapCi, pairedRandomization } from './lib/stats.js';

const CHUNKS_PER_QUERY = 400;

/** How a document's chunk scores combine into the document's rank. */
type Aggregate = 'best chunk' | 'sum of chunks' | 'best + ½ second';

interface Variant {
  name: string;
  options: SearchIndexOptions;
  aggregate?: Aggregate;
}

interface ReferenceVariant {
  name: string;
  options: ReferenceOptions;
  /** The row this one is compared with, claim by claim. */
  against: string;
}

// queryK3 1000 counts a repeated query term practically linearly: the ranking before query-side saturation.
const variants: Variant[] = [
  { name: 'shipped defaults', options: {} },
  { name: 'BM25, body only, overlap 0, query terms linear', options: { titleWeight: 0, headingWeight: 0, queryK3: 1000, overlapWords: 0 } },
  { name: 'no title field (title only in the first chunk)', options: { titleWeight: 0 } },
  { name: 'no title or heading field', options: { titleWeight: 0, headingWeight: 0 } },
  { name: 'chunks 180 words, overlap 0', options: { overlapWords: 0 } },
  { name: 'chunks 180 words, overlap 60', options: { overlapWords: 60 } },
  { name: 'chunks 140 words, overlap 40', options: { chunkWords: 140 } },
  { name: 'chunks 250 words, overlap 60', options: { chunkWords: 250, overlapWords: 60 } },
  { name: 'chunks 400 words, overlap 0', options: { chunkWords: 400, overlapWords: 0 } },
  { name: 'whole abstracts (1000 words)', options: { chunkWords: 1000, overlapWords: 0 } },
  { name: 'document = sum of its chunks', options: {}, aggregate: 'sum of chunks' },
  { name: 'document = best + ½ second chunk', options: {}, aggregate: 'best + ½ second' },
  { name: 'RM3 feedback (λ 0.1, 5 chunks, 20 terms)', options: { feedbackWeight: 0.1, feedbackTerms: 20 } },
];
const extra = parseSet(process.argv.slice(2));
if (extra !== undefined) variants.push({ name: `defaults + ${JSON.stringify(extra)}`, options: extra });

// Each row changes one factor of the shipped defaults to the plain system's choice, or one factor of
// the plain system back to the shipped choice, and is compared with the row it starts from.
const SHIPPED_REFERENCE = 'reference ranker, shipped settings';
const PLAIN = 'plain BM25 + Porter, 180-word windows, k1 0.9 b 0.4';
const references: ReferenceVariant[] = [
  { name: SHIPPED_REFERENCE, options: ENGINE_REFERENCE, against: 'shipped defaults' },
  { name: PLAIN, options: PLAIN_REFERENCE, against: 'shipped defaults' },
  { name: 'plain, k1 1.2 b 0.75', options: { ...PLAIN_REFERENCE, k1: 1.2, b: 0.75 }, against: PLAIN },
  { name: 'shipped, but fixed 180-word windows, no overlap', options: { ...ENGINE_REFERENCE, chunking: 'fixed', overlapWords: 0 }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but fixed 180-word windows, overlap 40', options: { ...ENGINE_REFERENCE, chunking: 'fixed' }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but no title field', options: { ...ENGINE_REFERENCE, titleField: false }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but query terms linear', options: { ...ENGINE_REFERENCE, queryK3: Infinity }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but plain tokenizer (same stop list)', options: { ...ENGINE_REFERENCE, tokenizer: 'plain' }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but plain tokenizer, Lucene stop list', options: { ...ENGINE_REFERENCE, tokenizer: 'plain', stopWords: 'lucene' }, against: SHIPPED_REFERENCE },
  { name: 'shipped, but k1 0.9 b 0.4', options: { ...ENGINE_REFERENCE, k1: 0.9, b: 0.4 }, against: SHIPPED_REFERENCE },
  { name: 'plain, but the engine chunker (overlap 40)', options: { ...PLAIN_REFERENCE, chunking: 'engine', overlapWords: 40 }, against: PLAIN },
  { name: 'plain, but the engine chunker, no overlap', options: { ...PLAIN_REFERENCE, chunking: 'engine' }, against: PLAIN },
  { name: 'plain, but overlap 40', options: { ...PLAIN_REFERENCE, overlapWords: 40 }, against: PLAIN },
  { name: 'plain, but a title field', options: { ...PLAIN_REFERENCE, titleField: true }, against: PLAIN },
  { name: 'plain, but query terms saturated (k3 1.2)', options: { ...PLAIN_REFERENCE, queryK3: 1.2 }, against: PLAIN },
  { name: "plain, but the engine's tokenizer", options: { ...PLAIN_REFERENCE, tokenizer: 'engine' }, against: PLAIN },
  { name: "plain, but the engine's stop list", options: { ...PLAIN_REFERENCE, stopWords: 'engine' }, against: PLAIN },
  { name: 'plain, but no stop list', options: { ...PLAIN_REFERENCE, stopWords: 'none' }, against: PLAIN },
  ...walk(),
];

/** The shipped settings turned into the plain ones step by step, each step compared with the one before. */
function walk(): ReferenceVariant[] {
  const steps: Array<[string, Partial<ReferenceOptions>]> = [
    ['k1 0.9 b 0.4', { k1: 0.9, b: 0.4 }],
    ['plain tokenizer', { tokenizer: 'plain' }],
    ['Lucene stop list', { stopWords: 'lucene' }],
    ['fixed windows, no overlap', { chunking: 'fixed', overlapWords: 0 }],
    ['no title field', { titleField: false }],
    ['query terms linear (= plain)', { queryK3: Infinity }],
  ];
  const out: ReferenceVariant[] = [];
  let options: ReferenceOptions = { ...ENGINE_REFERENCE };
  let previous = SHIPPED_REFERENCE;
  for (const [change, settings] of steps) {
    options = { ...options, ...settings };
    const name = `walk: … + ${change}`;
    out.push({ name, options, against: previous });
    previous = name;
  }
  return out;
}

const claims = readClaims();
const folder = writeCorpusFolder(readScifactDocs());
const corpus = await loadCorpus(folder);
console.log(`SciFact: ${corpus.documents.length} documents from ${folder}, ${claims.length} training claims with judgments\n`);

const even = (_: unknown, i: number): boolean => Number(claims[i]?.id) % 2 === 0;
const odd = (_: unknown, i: number): boolean => !even(_, i);
const withCi = (values: number[]): string => {
  const [lo, hi] = bootstrapCi(values);
  return `${mean(values).toFixed(4)} [${lo.toFixed(3)}–${hi.toFixed(3)}]`;
};
const versus = (values: number[], base: number[]): string => {
  const delta = mean(values) - mean(base);
  return `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(4)} (p ${pairedRandomization(values, base).toFixed(3)})`;
};

/** Per-claim nDCG@10 of every row so far, by row name, for the rows that compare against it. */
const results = new Map<string, number[]>();
const row = (name: string, perClaim: Array<{ ndcg: number; recall: number }>, chunks: number, against?: string): string[] => {
  const ndcg = perClaim.map((r) => r.ndcg);
  results.set(name, ndcg);
  const base = against === undefined ? undefined : results.get(against);
  const compare = (pick: (_: unknown, i: number) => boolean): string => (base === undefined ? '—' : versus(ndcg.filter(pick), base.filter(pick)));
  return [
    name,
    withCi(ndcg),
    withCi(ndcg.filter(even)),
    withCi(ndcg.filter(odd)),
    compare(() => true),
    compare(even),
    compare(odd),
    mean(perClaim.map((r) => r.recall)).toFixed(4),
    String(chunks),
  ];
};
const header = ['ranking', 'nDCG@10 all [95% CI]', 'even ids', 'odd ids', 'Δ all (p)', 'Δ even (p)', 'Δ odd (p)', 'R@100', 'chunks'];

const rows: string[][] = [];
const builds = new Map<string, SearchIndex>();
for (const variant of variants) {
  const key = JSON.stringify(variant.options);
  let index = builds.get(key);
  if (index === undefined) builds.set(key, (index = SearchIndex.build(corpus.documents, variant.options)));
  const perClaim = claims.map((claim) => score(index, claim, variant.aggregate ?? 'best chunk'));
  rows.push(row(variant.name, perClaim, index.stats.chunks, results.size === 0 ? undefined : 'shipped defaults'));
}
console.log(table(header, rows));

const referenceRows: string[][] = [];
// The walk passes through settings that other rows hold already; the ranking is deterministic, so reuse it.
const referenceRuns = new Map<string, { perClaim: Array<{ ndcg: number; recall: number }>; chunks: number }>();
for (const variant of references) {
  const key = JSON.stringify(variant.options, (_, value: unknown) => (value === Infinity ? 'Infinity' : value));
  let run = referenceRuns.get(key);
  if (run === undefined) {
    const ranker = new ReferenceRanker(corpus.documents, variant.options);
    const perClaim = claims.map((claim) => {
      const ranked = ranker.rank(claim.text, 100).map(docIdOf);
      return { ndcg: ndcgAt(ranked, claim.relevant, 10), recall: recallAt(ranked, claim.relevant, 100) };
    });
    referenceRuns.set(key, (run = { perClaim, chunks: ranker.chunkCount }));
  }
  referenceRows.push(row(variant.name, run.perClaim, run.chunks, variant.against));
}
console.log('\nFrom the shipped defaults to plain BM25, one factor at a time (reference ranker, scripts/lib/plain-bm25.ts):');
console.log(table(header, referenceRows));
console.log(
  `\nΔ and p: "${SHIPPED_REFERENCE}" and "${PLAIN}" against the shipped defaults; "shipped, but …" rows against "${SHIPPED_REFERENCE}"; "plain…" rows against "${PLAIN}"; each "walk" row against the row above it (the first against "${SHIPPED_REFERENCE}").`,
);
console.log('CI: percentile bootstrap over claims, 2000 resamples. p: paired randomization test, 10000 sign flips, two-sided.');

function score(index: SearchIndex, claim: Claim, aggregate: Aggregate): { ndcg: number; recall: number } {
  const ranked = rankDocuments(index.search(claim.text, { topK: CHUNKS_PER_QUERY }), aggregate).slice(0, 100);
  return { ndcg: ndcgAt(ranked, claim.relevant, 10), recall: recallAt(ranked, claim.relevant, 100) };
}

/** Document ids, best first, from chunk hits (best first). */
function rankDocuments(hits: readonly SearchHit[], aggregate: Aggregate): string[] {
  const byDoc = new Map<string, number[]>();
  for (const hit of hits) {
    const id = docIdOf(hit.source);
    const scores = byDoc.get(id);
    if (scores === undefined) byDoc.set(id, [hit.score]);
    else scores.push(hit.score);
  }
  // Map order is first-seen order, i.e. the rank of each document's best chunk.
  if (aggregate === 'best chunk') return [...byDoc.keys()];
  const combine = (s: number[]): number =>
    aggregate === 'sum of chunks' ? s.reduce((a, b) => a + b, 0) : (s[0] as number) + 0.5 * (s[1] ?? 0);
  return [...byDoc.entries()]
    .map(([id, scores]) => ({ id, score: combine(scores) }))
    .sort((a, b) => b.score - a.score)
    .map((d) => d.id);
}

function parseSet(args: string[]): SearchIndexOptions | undefined {
  const at = args.indexOf('--set');
  if (at < 0) return undefined;
  const options: Record<string, number> = {};
  for (const pair of (args[at + 1] ?? '').split(',')) {
    const [key, value] = pair.split('=');
    if (key) options[key] = Number(value);
  }
  return options as SearchIndexOptions;
}
