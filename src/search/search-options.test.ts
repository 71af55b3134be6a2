import { describe, expect, it } from 'vitest';
import { SearchError } from './search-error.js';
import { DEFAULT_SEARCH_OPTIONS, resolveSearchOptions } from './search-options.js';

describe('resolveSearchOptions', () => {
  it('fills in the documented defaults', () => {
    expect(resolveSearchOptions()).toEqual(DEFAULT_SEARCH_OPTIONS);
    expect(resolveSearchOptions({ k1: 2 })).toEqual({ ...DEFAULT_SEARCH_OPTIONS, k1: 2 });
  });

  it.each([
    [{ chunkWords: 10 }, 'chunkWords=10'],
    [{ chunkWords: 100.5 }, 'chunkWords=100.5'],
    [{ b: 1.5 }, 'b=1.5'],
    [{ k1: Number.NaN }, 'k1=NaN'],
    [{ titleWeight: -1 }, 'titleWeight=-1'],
    [{ queryK3: 1001 }, 'queryK3=1001'],
    [{ feedbackWeight: 1 }, 'feedbackWeight=1'],
    [{ chunkWords: 60, overlapWords: 40 }, 'overlapWords=40'],
    [{ chunkSize: 3 } as never, '"chunkSize"'],
  ])('rejects %j with code invalid_option and a message naming %s', (options, named) => {
    expect(() => resolveSearchOptions(options)).toThrow(SearchError);
    expect(() => resolveSearchOptions(options)).toThrow(expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining(named) as string }));
  });
});
