// Build time, memory after build (JS heap + ArrayBuffers), query latency and nDCG@10 on SciFact and on a 5× copy of it, for
// corpus-mcp and three JavaScript search libraries, in one run. Needs --expose-gc (npm run bench).
// Usage: npm run bench [-- --copies 1,5]
import MiniSearch from 'minisearch';
import FlexSearch from 'flexsearch';
import winkBm25 from 'wink-bm25-text-search';
import nlp from 'wink-nlp-utils';
import { stemmer } from 'stemmer';
import { loadCorpus } from '../src/corpus/load-corpus.js';
import type { Document } from '../src/corpus/document.js';
import { SearchIndex } from '../src/search/search-index.js';
import { STOP_WORDS } from '../src/search/stop-words.js';
import { dedupe, docIdOf, mean, ndcgAt, readClaims, readScifactDocs, table, writeCorpusFolder, type Claim } from '../scripts/lib/scifact.js';

interface Engine {
  name: string;
  /** Builds an index over `docs` and returns a function answering a query with ranked document ids. */
  build(docs: readonly Document[]): (query: string) => string[];
}

interface Result {
  engine: string;
  buildMs: number;
  heapMb: number;
  p50Ms: number;
  p99Ms: number;
  ndcg: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench)');

/** Hits asked of corpus-mcp per query: chunks, several of which can come from one document. */
const CHUNK_HITS = 20;
const RESULTS = 10;
const MIN_PASSES = 3;
const MAX_PASSES = 15;
const MIN_TIMED_MS = 2000;
const WORD = /[\p{L}\p{N}]+/gu;

/** The tokenizer the peers get: lowercase words, the same stop list, the same Porter stemmer. */
function englishTerms(text: string): string[] {
  const out: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(WORD)) if (!STOP_WORDS.has(word)) out.push(stemmer(word));
  return out;
}

const body = (doc: Document): string => doc.text.slice(doc.bodyStart);

const engines: Engine[] = [
  {
    name: 'corpus-mcp',
    build(docs) {
      const index = SearchIndex.build(docs);
      return (query) => dedupe(index.search(query, { topK: CHUNK_HITS }).map((hit) => hit.source), RESULTS);
    },
  },
  {
    name: 'minisearch',
    build(docs) {
      const index = new MiniSearch<{ id: string; title: string; text: string }>({
        fields: ['title', 'text'],
        tokenize: englishTerms,
        processTerm: (term) => term,
        searchOptions: { boost: { title: 2 }, tokenize: englishTerms, processTerm: (term) => term },
      });
      index.addAll(docs.map((doc) => ({ id: doc.source, title: doc.title, text: body(doc) })));
      return (query) => index.search(query).slice(0, RESULTS).map((r) => String(r.id));
    },
  },
  {
    name: 'wink-bm25-text-search',
    build(docs) {
      const engine = winkBm25();
      engine.defineConfig({ fldWeights: { title: 2, body: 1 } });
      engine.definePrepTasks([nlp.string.lowerCase, nlp.string.removeExtraSpaces, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem]);
      for (const doc of docs) engine.addDoc({ title: doc.title, body: body(doc) }, doc.source);
      engine.consolidate();
      return (query) => (engine.search(query, RESULTS) as Array<[string, number]>).map(([id]) => id);
    },
  },
  {
    // One index over title and text: of the flexsearch set-ups tried, the one that ranks best.
    name: 'flexsearch',
    build(docs) {
      const index = new FlexSearch.Index({ tokenize: 'strict', resolution: 9, encode: englishTerms });
      for (const doc of docs) index.add(doc.source, `${doc.title}\n${body(doc)}`);
      return (query) => index.search(query, { limit: RESULTS, suggest: true }).map(String);
    },
  },
  {
    // The contextual index (pairs of nearby terms): much faster, ranks worse.
    name: 'flexsearch (context)',
    build(docs) {
      const index = new FlexSearch.Index({
        tokenize: 'strict',
        resolution: 9,
        context: { depth: 1, resolution: 3, bidirectional: true },
        encode: englishTerms,
      });
      for (const doc of docs) index.add(doc.source, `${doc.title}\n${body(doc)}`);
      return (query) => index.search(query, { limit: RESULTS, suggest: true }).map(String);
    },
  },
];

const copiesArg = process.argv.indexOf('--copies');
const copiesList = copiesArg >= 0 ? (process.argv[copiesArg + 1] ?? '1,5').split(',').map(Number) : [1, 5];
const claims = readClaims();
const scifact = readScifactDocs();

for (const copies of copiesList) {
  const corpus = await loadCorpus(writeCorpusFolder(scifact, copies));
  const results: Result[] = [];
  for (const engine of engines) results.push(measure(engine, corpus.documents, claims));
  const ours = results[0] as Result;
  const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`;
  console.log(`\nSciFact ×${copies}: ${corpus.documents.length} documents, ${claims.length} claims (Node ${process.version})\n`);
  console.log(
    table(
      ['engine', 'build s', 'vs ours', 'memory MB', 'vs ours', 'p50 ms', 'vs ours', 'p99 ms', 'vs ours', 'nDCG@10'],
      results.map((r) => [
        r.engine,
        (r.buildMs / 1000).toFixed(3),
        ratio(r.buildMs, ours.buildMs),
        r.heapMb.toFixed(1),
        ratio(r.heapMb, ours.heapMb),
        r.p50Ms.toFixed(4),
        ratio(r.p50Ms, ours.p50Ms),
        r.p99Ms.toFixed(4),
        ratio(r.p99Ms, ours.p99Ms),
        // In a copied corpus every relevant document exists several times, so nDCG says nothing there.
        copies === 1 ? r.ndcg.toFixed(4) : '—',
      ]),
    ),
  );
}

function measure(engine: Engine, docs: readonly Document[], queries: readonly Claim[]): Result {
  settle();
  const before = retained();
  const started = performance.now();
  let query: ((q: string) => string[]) | undefined = engine.build(docs);
  const buildMs = performance.now() - started;
  settle();
  const heapMb = (retained() - before) / 2 ** 20;

  for (const claim of queries) query(claim.text); // warm-up: JIT, caches
  const ndcgs = queries.map((claim) => ndcgAt(dedupe(query!(claim.text).map(docIdOf), RESULTS), claim.relevant, RESULTS));
  // The machine is shared: a pass of fast queries can fall entirely inside someone else's burst.
  // Timed passes repeat until at least MIN_PASSES and MIN_TIMED_MS; each percentile reported is
  // the median of that percentile over the passes.
  const p50s: number[] = [];
  const p99s: number[] = [];
  const timingStarted = performance.now();
  while (p50s.length < MIN_PASSES || (performance.now() - timingStarted < MIN_TIMED_MS && p50s.length < MAX_PASSES)) {
    const times: number[] = [];
    for (const claim of queries) {
      const t0 = performance.now();
      query(claim.text);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    p50s.push(times[Math.floor(times.length / 2)] ?? 0);
    p99s.push(times[Math.floor(times.length * 0.99)] ?? 0);
  }
  query = undefined;
  return { engine: engine.name, buildMs, heapMb, p50Ms: median(p50s), p99Ms: median(p99s), ndcg: mean(ndcgs) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function retained(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function settle(): void {
  for (let i = 0; i < 3; i += 1) gc?.();
}
