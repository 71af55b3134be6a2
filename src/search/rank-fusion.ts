/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a chunk's fused score is
 * Σ over the lists that hold it of 1 / (k + rank), rank counted from 1. It needs no score
 * calibration between lists, which is why it suits BM25 scores (unbounded) beside cosine
 * similarities (−1…1). k = 60 is the paper's value; a larger k flattens the difference between
 * ranks.
 */
export const RRF_K = 60;

export interface RankedList<Name extends string> {
  name: Name;
  /** Chunk numbers, best first. */
  ids: readonly number[];
}

export interface FusedHit<Name extends string> {
  id: number;
  score: number;
  /** The lists that hold this chunk, in the order the lists were given. */
  foundBy: Name[];
}

/** The `topK` best chunks of the fused lists, best first; ties go to the lower chunk number. */
export function fuseRankings<Name extends string>(lists: ReadonlyArray<RankedList<Name>>, topK: number, k = RRF_K): Array<FusedHit<Name>> {
  const fused = new Map<number, FusedHit<Name>>();
  for (const list of lists) {
    list.ids.forEach((id, rank) => {
      let hit = fused.get(id);
      if (hit === undefined) fused.set(id, (hit = { id, score: 0, foundBy: [] }));
      hit.score += 1 / (k + rank + 1);
      hit.foundBy.push(list.name);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, topK);
}
