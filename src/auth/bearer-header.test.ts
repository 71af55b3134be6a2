import { describe, expect, it } from 'vitest';
import { AuthError } from './auth-error.js';
import { parseBearerHeader } from './bearer-header.js';

function codeOf(header: string | undefined): string {
  try {
    parseBearerHeader(header);
  } catch (error) {
    if (error instanceof AuthError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('parseBearerHeader', () => {
  it.each(['Bearer abc.def-ghi_~+/==', 'bearer abc', 'BEARER abc', 'BeArEr    abc'])(
    'RFC 9110 §11.1: accepts the Bearer scheme in any letter case (%s)',
    (header) => {
      expect(parseBearerHeader(header)).toBe(header.split(/ +/)[1]);
    },
  );

  it.each([undefined, '', '   '])('RFC 6750 §3.1: treats an absent header (%j) as missing credentials', (header) => {
    expect(codeOf(header)).toBe('missing_token');
  });

  it.each(['Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc'])(
    'RFC 6750 §3.1: treats another authentication scheme (%s) as missing credentials, not an error',
    (header) => {
      expect(codeOf(header)).toBe('missing_token');
    },
  );

  it.each(['Bearer', 'Bearer ', 'Bearer a b', 'Bearer abc, Bearer def', 'Bearer "abc"', 'Bearer ab=c', 'Bearer é'])(
    'RFC 6750 §3.1: refuses a malformed Bearer header (%j) as invalid_request',
    (header) => {
      expect(codeOf(header)).toBe('invalid_request');
    },
  );

  it('never puts the token in its error message', () => {
    const secret = 'abc def-secret-part';
    expect(() => parseBearerHeader(`Bearer ${secret}`)).toThrow(AuthError);
    expect(() => parseBearerHeader(`Bearer ${secret}`)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret-part') }));
  });
});
