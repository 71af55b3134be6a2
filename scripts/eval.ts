// Retrieval quality on SciFact's training claims, through the same loading and chunking path the
// server uses. Document-level nDCG@10 and Recall@100, on all claims and on two held-apart halves
// (even and odd claim ids), for the shipped defaults and for ablations that show what each part adds.
// Usage: npm run eval [-- --set k1=1.0,b=0.6]  (extra settings are evaluated as one more row)
import { loadCorpus } from '../src/corpus/load-corpus.js';
import { SearchIndex, type SearchIndexOptions } from '../src/search/search-index.js';
import { dedupe, docIdOf, mean, ndcgAt, readClaims, readScifactDocs, recallAt, table, writeCorpusFolder, type Claim } from './lib/scifact.js';

const CHUNKS_PER_QUERY = 400;

interface Variant {
  name: string;
  options: SearchIndexOptions;
}

// queryK3 1000 counts a repeated query term practically linearly: the ranking before query-side saturation.
const variants: Variant[] = [
  { name: 'BM25, body only, query terms linear (k3 1000)', options: { titleWeight: 0, headingWeight: 0, queryK3: 1000 } },
  { name: 'BM25F (title/heading), query terms linear (k3 1000)', options: { queryK3: 1000 } },
  { name: 'BM25, body only (no fields)', options: { titleWeight: 0, headingWeight: 0 } },
  { name: 'BM25F, repeated query terms once (k3 0)', options: { queryK3: 0 } },
  { name: 'BM25F + RM3 feedback (λ 0.3, 5 chunks, 10 terms)', options: { feedbackWeight: 0.3 } },
  { name: 'BM25F + RM3 feedback (λ 0.1, 5 chunks, 20 terms)', options: { feedbackWeight: 0.1, feedbackTerms: 20 } },
  { name: 'shipped defaults', options: {} },
];
const extra = parseSet(process.argv.slice(2));
if (extra !== undefined) variants.push({ name: `defaults + ${JSON.stringify(extra)}`, options: extra });

const claims = readClaims();
const folder = writeCorpusFolder(readScifactDocs());
const corpus = await loadCorpus(folder);
console.log(`SciFact: ${corpus.documents.length} documents from ${folder}, ${claims.length} training claims with judgments\n`);

const rows: string[][] = [];
for (const variant of variants) {
  const index = SearchIndex.build(corpus.documents, variant.options);
  const perClaim = claims.map((claim) => score(index, claim));
  const half = (parity: number): typeof perClaim => perClaim.filter((_, i) => Number(claims[i]?.id) % 2 === parity);
  const cell = (list: typeof perClaim, key: 'ndcg' | 'recall'): string => mean(list.map((r) => r[key])).toFixed(4);
  rows.push([
    variant.name,
    cell(perClaim, 'ndcg'),
    cell(half(0), 'ndcg'),
    cell(half(1), 'ndcg'),
    cell(perClaim, 'recall'),
    cell(half(0), 'recall'),
    cell(half(1), 'recall'),
    String(index.stats.chunks),
  ]);
}
console.log(
  table(['ranking', 'nDCG@10 all', 'even ids', 'odd ids', 'R@100 all', 'even ids', 'odd ids', 'chunks'], rows),
);

function score(index: SearchIndex, claim: Claim): { ndcg: number; recall: number } {
  const hits = index.search(claim.text, { topK: CHUNKS_PER_QUERY });
  const ranked = dedupe(
    hits.map((hit) => docIdOf(hit.source)),
    100,
  );
  return { ndcg: ndcgAt(ranked, claim.relevant, 10), recall: recallAt(ranked, claim.relevant, 100) };
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
