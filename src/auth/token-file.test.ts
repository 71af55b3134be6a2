import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokenFile, TokenFileError } from './token-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'token-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readTokenFile', () => {
  it('reads one token a line, skipping blank lines and # comments, trimming CRLF', async () => {
    const path = join(dir, 'tokens');
    await writeFile(path, '# CI\r\nfirst-token\r\n\r\n  second-token  \n');
    expect(await readTokenFile(path)).toEqual(['first-token', 'second-token']);
  });

  it('names a missing file and what to do', async () => {
    await expect(readTokenFile(join(dir, 'nope'))).rejects.toThrow(/AUTH_TOKENS_FILE .*nope cannot be read \(ENOENT\)/);
  });

  it('refuses a file with no tokens', async () => {
    const path = join(dir, 'empty');
    await writeFile(path, '# nothing here\n\n');
    await expect(readTokenFile(path)).rejects.toBeInstanceOf(TokenFileError);
  });
});
