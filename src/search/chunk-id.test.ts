import { describe, expect, it } from 'vitest';
import { chunkId, parseChunkId } from './chunk-id.js';

describe('chunk ids', () => {
  it('reads back what it builds, splitting at the last #', () => {
    expect(parseChunkId(chunkId('guides/deploy.md', 3))).toEqual({ source: 'guides/deploy.md', n: 3 });
    expect(parseChunkId(chunkId('notes/c#.md', 0))).toEqual({ source: 'notes/c#.md', n: 0 });
  });

  it('refuses ids without a plain decimal chunk number', () => {
    for (const id of ['guides/deploy.md', 'guides/deploy.md#', 'guides/deploy.md#01', 'guides/deploy.md#-1', 'guides/deploy.md#1.5', 'a#٣']) {
      expect(parseChunkId(id)).toBeUndefined();
    }
  });
});
