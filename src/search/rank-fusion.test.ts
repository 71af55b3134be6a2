import { describe, expect, it } from 'vitest';
import { fuseRankings, RRF_K } from './rank-fusion.js';

describe('fuseRankings', () => {
  it('scores a chunk by the sum of 1 / (60 + rank) over the lists that hold it, and names those lists', () => {
    const fused = fuseRankings(
      [
        { name: 'keyword', ids: [7, 3, 9] },
        { name: 'semantic', ids: [3, 5] },
      ],
      10,
    );
    expect(fused.map((f) => f.id)).toEqual([3, 7, 5, 9]);
    expect(fused[0]).toEqual({ id: 3, score: 1 / (RRF_K + 2) + 1 / (RRF_K + 1), foundBy: ['keyword', 'semantic'] });
    expect(fused[1]).toEqual({ id: 7, score: 1 / (RRF_K + 1), foundBy: ['keyword'] });
    expect(fused[2]!.foundBy).toEqual(['semantic']);
  });

  it('breaks equal scores by the lower chunk number and cuts to topK', () => {
    const fused = fuseRankings(
      [
        { name: 'a', ids: [4] },
        { name: 'b', ids: [2] },
      ],
      1,
    );
    expect(fused).toEqual([{ id: 2, score: 1 / (RRF_K + 1), foundBy: ['b'] }]);
  });
});
