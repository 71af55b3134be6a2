/**
 * The ranking formula, BM25F-style (Robertson & Zaragoza, "The Probabilistic Relevance Framework",
 * 2009), with every chunk scored as three fields: its body text, its document's title and its
 * heading path. For a query term t and a chunk c:
 *
 *   tf~(t, c)  = tfBody / (1 - b + b · bodyLength / averageBodyLength)
 *              + titleWeight · tfTitle + headingWeight · tfHeading
 *   w(t, c)    = tf~ · (k1 + 1) / (k1 + tf~)                       saturation, bounded by k1 + 1
 *   idf(t)     = ln(1 + (N - n + 0.5) / (n + 0.5))                  Lucene's form: never negative
 *   qw(t)      = qtf · (k3 + 1) / (k3 + qtf)                        query-side saturation
 *   score(q,c) = Σ over distinct query terms t: qw(t) · idf(t) · w(t, c)
 *
 * N counts chunks, n the chunks holding t in any field, qtf how often t occurs in the query.
 * Titles and headings are a few words long, so they are weighted but not length-normalised. The
 * index stores w(t, c) per posting, so a query costs one multiply-add per posting.
 *
 * qw is Robertson's k3 saturation of query term frequency (Okapi at TREC-3): a term written twice
 * in a query ("cells … cells", or "increase … increased", which stem alike) counts more than once
 * but less than twice, so one repeated word cannot outweigh the query's other words. k3 = 0 counts
 * each distinct term once; a large k3 counts repeats linearly.
 */

export interface Bm25Params {
  k1: number;
  b: number;
  queryK3: number;
  titleWeight: number;
  headingWeight: number;
}

/** Inverse document frequency of a term held by `containing` of `total` chunks; always ≥ 0. */
export function idf(total: number, containing: number): number {
  return Math.log(1 + (total - containing + 0.5) / (containing + 0.5));
}

/** The field-weighted, length-normalised term frequency tf~ of one term in one chunk. */
export function combinedTf(
  params: Bm25Params,
  tfBody: number,
  tfTitle: number,
  tfHeading: number,
  bodyLength: number,
  averageBodyLength: number,
): number {
  const norm = averageBodyLength > 0 ? 1 - params.b + (params.b * bodyLength) / averageBodyLength : 1;
  // With b = 1 a chunk with an empty body (a heading of stop words) has norm 0: 0 / 0 would turn the
  // title and heading weights into NaN, so a body that holds nothing adds nothing.
  const body = tfBody === 0 ? 0 : tfBody / norm;
  return body + params.titleWeight * tfTitle + params.headingWeight * tfHeading;
}

/** BM25 saturation of tf~: 0 at 0, rising towards k1 + 1. */
export function saturate(tf: number, k1: number): number {
  return tf === 0 ? 0 : (tf * (k1 + 1)) / (k1 + tf);
}

/** The weight qw of a term written `qtf` times in the query: 1 for one occurrence, below k3 + 1 for any number. */
export function queryTermWeight(qtf: number, k3: number): number {
  return qtf === 0 ? 0 : (qtf * (k3 + 1)) / (k3 + qtf);
}
