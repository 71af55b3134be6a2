import { readFile } from 'node:fs/promises';

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
  readonly code = 'token_file_unreadable';
}

/**
 * Reads `AUTH_TOKENS_FILE`: one token a line; blank lines and lines starting with `#` are ignored,
 * surrounding whitespace (including a CR from CRLF files) is trimmed. Done at boot by main.ts, not by
 * config.ts, so that config stays a pure function of the environment.
 */
export async function readTokenFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new TokenFileError(`AUTH_TOKENS_FILE ${path} cannot be read (${reason}); point it at a file with one token a line`);
  }
  const tokens = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (tokens.length === 0) {
    throw new TokenFileError(`AUTH_TOKENS_FILE ${path} has no tokens; put one token on each line`);
  }
  return tokens;
}
