import { describe, expect, it } from 'vitest';
import { CodedError } from './coded-error.js';
import { SearchError } from './search/search-error.js';
import { StoreError } from './store/store.js';

describe('CodedError', () => {
  it("carries the code, the message, the cause, and the subclass's own name", () => {
    const cause = new Error('socket closed');
    const error = new StoreError('store_unavailable', 'the database at db:5432 does not answer', { cause });
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ name: 'StoreError', code: 'store_unavailable', message: 'the database at db:5432 does not answer', cause });
    expect(String(new SearchError('invalid_option', 'k1=-1 is invalid'))).toBe('SearchError: k1=-1 is invalid');
  });
});
