import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTokenFile, TokenFileError } from './token-file.js';

const first = 'first-0123456789abcdef0123456789abcdef';
const second = 'second-0123456789abcdef0123456789abcdef';
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
    await writeFile(path, `# CI\r\n${first}\r\n\r\n  ${second}  \n`);
    expect(await readTokenFile(path)).toEqual([first, second]);
  });

  it('names a missing file and what to do', async () => {
    await expect(readTokenFile(join(dir, 'nope'))).rejects.toThrow(/AUTH_TOKENS_FILE .*nope cannot be read \(ENOENT\)/);
    await expect(readTokenFile(join(dir, 'nope'))).rejects.toMatchObject({ name: 'TokenFileError', code: 'token_file_unreadable' });
  });

  it('names a token too short to be safe by its line number, without quoting it', async () => {
    const path = join(dir, 'weak');
    await writeFile(path, `${first}\n# comment\nhunter2\n`);
    const error = await readTokenFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenFileError);
    expect((error as Error).message).toMatch(/weak line 3 is 7 characters/);
    expect((error as Error).message).not.toContain('hunter2');
    expect((error as TokenFileError).code).toBe('invalid_static_token');
  });

  it('refuses a file with no tokens', async () => {
    const path = join(dir, 'empty');
    await writeFile(path, '# nothing here\n\n');
    await expect(readTokenFile(path)).rejects.toBeInstanceOf(TokenFileError);
    await expect(readTokenFile(path)).rejects.toMatchObject({ code: 'token_file_empty' });
  });
});
