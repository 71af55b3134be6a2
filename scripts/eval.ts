// Retrieval quality on SciFact's training claims, through the same loading and chunking path the
// server uses. Document-level nDCG@10 and Recall@100, on all claims and on two held-apart halves
// (even and odd claim ids), each nDCG with a 95 % bootstrap interval over claims, for the shipped
// defaults and for variants that show what each choice adds. Every variant is compared with the
// shipped defaults claim by claim: Δ and the two-sided p-value of a paired randomization test, on
// each half. A change is kept only when it wins on both halves by a margin with p < 0.05 on all claims.
// Usage: npm run eval [-- --set k1=1.0,b=0.6]  (extra settings are evaluated as one more row)
import { loadCorpus } from '../src/corpus/load-corpus.js';
import { SearchIndex, type SearchHit, type SearchIndexOptions } from '../src/search/search-index.js';
import { docIdOf, mean, ndcgAt, readClaims, readScifactDocs, recallAt, table, writeCorpusFolder, type Claim } from './lib/scifact.js';
import { bootstrapCi, pairedRandomization } from './lib/stats.js';

const CHUNKS_PER_QUERY = 400;

/** How a document's chunk scores combine into the document's rank. */
type Aggregate = 'best chunk' | 'sum of chunks' | 'best + ½ second';

interface Variant {
  name: string;
  options: SearchIndexOptions;
  aggregate?: Aggregate;
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
const versus = (values: number[], base: number[], isBase: boolean): string => {
  if (isBase) return '—';
  const delta = mean(values) - mean(base);
  return `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(4)} (p ${pairedRandomization(values, base).toFixed(3)})`;
};

const rows: string[][] = [];
const builds = new Map<string, SearchIndex>();
let base: number[] | undefined;
for (const variant of variants) {
  const key = JSON.stringify(variant.options);
  let index = builds.get(key);
  if (index === undefined) builds.set(key, (index = SearchIndex.build(corpus.documents, variant.options)));
  const perClaim = claims.map((claim) => score(index, claim, variant.aggregate ?? 'best chunk'));
  const ndcg = perClaim.map((r) => r.ndcg);
  const recall = perClaim.map((r) => r.recall);
  const isBase = base === undefined;
  base ??= ndcg;
  rows.push([
    variant.name,
    withCi(ndcg),
    withCi(ndcg.filter(even)),
    withCi(ndcg.filter(odd)),
    versus(ndcg, base, isBase),
    versus(ndcg.filter(even), base.filter(even), isBase),
    versus(ndcg.filter(odd), base.filter(odd), isBase),
    mean(recall).toFixed(4),
    String(index.stats.chunks),
  ]);
}
console.log(
  table(['ranking', 'nDCG@10 all [95% CI]', 'even ids', 'odd ids', 'Δ all (p)', 'Δ even (p)', 'Δ odd (p)', 'R@100', 'chunks'], rows),
);
console.log('\nCI: percentile bootstrap over claims, 2000 resamples. p: paired randomization test against the shipped defaults, 10000 sign flips, two-sided.');

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
