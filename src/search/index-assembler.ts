// The part of a build that sees the whole corpus: batches of tokenized documents (tokenize-batch.ts)
// go in, in document order, and come out as one inverted index and the chunk arrays of a
// `SearchIndex`. Terms and headings are numbered afresh in the order chunks first use them, so the
// result does not depend on how the documents were cut into batches nor on the order the batches'
// own vocabularies saw their words: a build tokenized in worker threads is the serial build, byte
// for byte.
import { combinedTf, idf, saturate, type Bm25Params } from './bm25.js';
import { InvertedIndex } from './inverted-index.js';
import type { TokenizedBatch } from './tokenize-batch.js';

/** What the assembler makes of the batches; the rest of `SearchIndexParts` is the caller's. */
export interface AssembledIndex {
  inverted: InvertedIndex;
  /** Document d owns chunks `firstChunk[d] .. firstChunk[d + 1]`. */
  firstChunk: Uint32Array;
  chunkStart: Uint32Array;
  chunkEnd: Uint32Array;
  chunkPage: Uint32Array;
  headings: string[];
  chunkHeading: Uint32Array;
}

/**
 * Takes batches in document order (`add`), renumbering each as it comes, then weighs and sorts the
 * postings (`finish`). Each batch's entry terms and chunk headings are rewritten in place.
 */
export class IndexAssembler {
  readonly #params: Bm25Params;
  readonly #keepForward: boolean;
  readonly #batches: TokenizedBatch[] = [];
  readonly #termIds = new Map<string, number>();
  readonly #headingIds = new Map<string, number>();
  #documents = 0;
  #chunks = 0;
  #entries = 0;
  #totalBody = 0;

  /** `keepForward`: keep each chunk's terms and body counts, which pseudo-relevance feedback reads. */
  constructor(params: Bm25Params, keepForward: boolean) {
    this.#params = params;
    this.#keepForward = keepForward;
  }

  /** The next batch in document order. */
  add(batch: TokenizedBatch): void {
    const termIds = this.#termIds;
    const globalOf = new Int32Array(batch.terms.length).fill(-1);
    const { entryTerm } = batch;
    for (let e = 0; e < entryTerm.length; e += 1) {
      const local = entryTerm[e] as number;
      let id = globalOf[local] as number;
      if (id < 0) {
        const term = batch.terms[local] as string;
        id = termIds.get(term) ?? -1;
        if (id < 0) termIds.set(term, (id = termIds.size));
        globalOf[local] = id;
      }
      entryTerm[e] = id;
    }
    const headingOf = batch.headings.map((heading) => {
      let id = this.#headingIds.get(heading);
      if (id === undefined) this.#headingIds.set(heading, (id = this.#headingIds.size));
      return id;
    });
    const { chunkHeading, bodyLength } = batch;
    for (let c = 0; c < chunkHeading.length; c += 1) chunkHeading[c] = headingOf[chunkHeading[c] as number] as number;
    for (let c = 0; c < bodyLength.length; c += 1) this.#totalBody += bodyLength[c] as number;
    this.#documents += batch.chunkCounts.length;
    this.#chunks += bodyLength.length;
    this.#entries += entryTerm.length;
    this.#batches.push(batch);
  }

  /** The index of every batch added. A term only in a field of weight 0 gets no posting: it cannot change a score. */
  finish(): AssembledIndex {
    const params = this.#params;
    const keepForward = this.#keepForward;
    const batches = this.#batches;
    const chunkCount = this.#chunks;
    const termCount = this.#termIds.size;
    const averageBodyLength = chunkCount > 0 ? this.#totalBody / chunkCount : 0;

    // Per term the postings it gets, counted first so each list is filled in chunk order. The weights
    // are computed again when the lists are filled rather than kept: an array of them (100 MB at 100k
    // documents) cost more in fresh pages than computing each twice.
    const weightOf = (batch: TokenizedBatch, e: number, length: number): number =>
      saturate(combinedTf(params, batch.entryBody[e] as number, batch.entryTitle[e] as number, batch.entryHeading[e] as number, length, averageBodyLength), params.k1);
    const postingStart = new Uint32Array(termCount + 1);
    let postings = 0;
    for (const batch of batches) {
      const { entryStart, entryTerm, bodyLength } = batch;
      for (let c = 0; c < bodyLength.length; c += 1) {
        const length = bodyLength[c] as number;
        for (let e = entryStart[c] as number; e < (entryStart[c + 1] as number); e += 1) {
          if (weightOf(batch, e, length) === 0) continue;
          postings += 1;
          const next = (entryTerm[e] as number) + 1;
          postingStart[next] = (postingStart[next] as number) + 1;
        }
      }
    }
    for (let t = 0; t < termCount; t += 1) postingStart[t + 1] = (postingStart[t + 1] as number) + (postingStart[t] as number);

    const fill = postingStart.slice(0, termCount);
    const postingChunk = new Uint32Array(postings);
    const postingWeight = new Float32Array(postings);
    const maxWeight = new Float32Array(termCount);
    const forwardStart = new Uint32Array(keepForward ? chunkCount + 1 : 0);
    const forwardTerm = new Uint32Array(keepForward ? this.#entries : 0);
    const forwardTf = new Uint16Array(keepForward ? this.#entries : 0);
    const firstChunk = new Uint32Array(this.#documents + 1);
    const chunkStart = new Uint32Array(chunkCount);
    const chunkEnd = new Uint32Array(chunkCount);
    const chunkPage = new Uint32Array(chunkCount);
    const chunkHeading = new Uint32Array(chunkCount);
    const bodyLength = new Uint32Array(chunkCount);
    let document = 0;
    let chunkBase = 0;
    let entryBase = 0;
    for (const batch of batches) {
      const { entryStart, entryTerm, entryBody } = batch;
      const chunks = batch.bodyLength.length;
      for (let d = 0; d < batch.chunkCounts.length; d += 1) {
        firstChunk[document + 1] = (firstChunk[document] as number) + (batch.chunkCounts[d] as number);
        document += 1;
      }
      chunkStart.set(batch.chunkStart, chunkBase);
      chunkEnd.set(batch.chunkEnd, chunkBase);
      chunkPage.set(batch.chunkPage, chunkBase);
      chunkHeading.set(batch.chunkHeading, chunkBase);
      bodyLength.set(batch.bodyLength, chunkBase);
      for (let c = 0; c < chunks; c += 1) {
        const chunk = chunkBase + c;
        const length = batch.bodyLength[c] as number;
        if (keepForward) forwardStart[chunk] = entryBase + (entryStart[c] as number);
        for (let e = entryStart[c] as number; e < (entryStart[c + 1] as number); e += 1) {
          const term = entryTerm[e] as number;
          if (keepForward) {
            forwardTerm[entryBase + e] = term;
            forwardTf[entryBase + e] = Math.min(entryBody[e] as number, 0xffff);
          }
          const w = weightOf(batch, e, length);
          if (w === 0) continue;
          const at = fill[term] as number;
          fill[term] = at + 1;
          postingChunk[at] = chunk;
          postingWeight[at] = w;
          if (w > (maxWeight[term] as number)) maxWeight[term] = w;
        }
      }
      chunkBase += chunks;
      entryBase += entryTerm.length;
    }
    if (keepForward) forwardStart[chunkCount] = entryBase;
    const idfs = new Float64Array(termCount);
    for (let t = 0; t < termCount; t += 1) idfs[t] = idf(chunkCount, (postingStart[t + 1] as number) - (postingStart[t] as number));

    const inverted = InvertedIndex.fromParts({
      terms: [...this.#termIds.keys()],
      idf: idfs,
      postingStart,
      postingChunk,
      postingWeight,
      maxWeight,
      forwardStart,
      forwardTerm,
      forwardTf,
      bodyLength,
    });
    return { inverted, firstChunk, chunkStart, chunkEnd, chunkPage, headings: [...this.#headingIds.keys()], chunkHeading };
  }
}
