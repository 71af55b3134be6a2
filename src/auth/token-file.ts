import { readFile } from 'node:fs/promises';
import { CodedError } from '../coded-error.js';
import { type StaticTokenConfigError, staticTokenProblems } from './static-tokens.js';

/**
 * Why AUTH_TOKENS_FILE cannot be used: it cannot be read, it holds no token, or a token in it breaks
 * the rules AUTH_TOKENS follows (the same code as StaticTokenConfigError's).
 */
export type TokenFileErrorCode = 'token_file_unreadable' | 'token_file_empty' | StaticTokenConfigError['code'];

export class TokenFileError extends CodedError<TokenFileErrorCode> {}

/**
 * Reads `AUTH_TOKENS_FILE`: one token a line; blank lines and lines starting with `#` are ignored,
 * surrounding whitespace (including a CR from CRLF files) is trimmed. Each token must pass the same
 * rules as AUTH_TOKENS; a bad one is named by its line number, never quoted. Done at boot by main.ts, not by
 * src/config/, so that config stays a pure function of its arguments.
 */
export async function readTokenFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new TokenFileError('token_file_unreadable', `AUTH_TOKENS_FILE ${path} cannot be read (${reason}); point it at a file with one token a line`);
  }
  const lines = text
    .split('\n')
    .map((line, index) => ({ token: line.trim(), line: index + 1 }))
    .filter(({ token }) => token !== '' && !token.startsWith('#'));
  if (lines.length === 0) {
    throw new TokenFileError('token_file_empty', `AUTH_TOKENS_FILE ${path} has no tokens; put one token on each line`);
  }
  const problems = staticTokenProblems(
    lines.map(({ token }) => token),
    (index) => `AUTH_TOKENS_FILE ${path} line ${lines[index]?.line ?? '?'}`,
  );
  if (problems.length > 0) throw new TokenFileError('invalid_static_token', problems.join('; '));
  return lines.map(({ token }) => token);
}
