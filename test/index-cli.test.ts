// `npm run index` as a person runs it (src/index-cli.ts from sources): on a terminal (a real
// pseudo-terminal, from util-linux's `script`) a bar redrawn in place with the phase's counts, erased
// before the one result line; off a terminal, plain progress lines on stderr at the interval asked for,
// and stdout keeps the one result line it always printed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCorpusFiles } from './support/sample-corpus.js';

const run = promisify(execFile);
const root = new URL('../', import.meta.url).pathname;
const cli = ['--import', 'tsx', 'src/index-cli.ts'];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-index-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `count` short markdown files: enough that reading them takes more than a millisecond. */
async function corpusOf(count: number): Promise<string> {
  const corpus = join(dir, 'corpus');
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) files[`doc-${i}.md`] = `# Note ${i}\n\nThe keeper logs the weather, trims the wick and records ship ${i} in the ledger.\n`;
  await writeCorpusFiles(corpus, files);
  return corpus;
}

const RESULT_LINE = /^corpus-mcp index: (\S+) written \(new\): \d+\.\d MiB from (\S+) in \d+\.\d\d s$/;

describe('npm run index', { timeout: 120_000 }, () => {
  it('draws a bar in place on a terminal, with files extracted and documents indexed, then erases it before the result line', async () => {
    const corpus = await corpusOf(40);
    const out = join(dir, 'index.snapshot');
    const command = [process.execPath, ...cli, '--out', out].join(' ');
    // `script` gives the command a pseudo-terminal for stdout and stderr and copies what it shows to ours.
    const { stdout: screen } = await run('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, CORPUS_DIR: corpus } });
    // Each redraw goes back to the start of the line and erases it (CR, then ESC [K).
    const redraws = screen.split('\r\x1b[K').slice(1);
    expect(redraws.some((line) => /^reading files \[[█░]{16}\] \d+\/40 extracted/.test(line))).toBe(true);
    expect(redraws.some((line) => /^indexing \[[█░]{16}\] \d+\/40 documents/.test(line))).toBe(true);
    expect(screen).not.toContain('corpus-mcp index: reading files:');
    const last = screen.split('\x1b[K').at(-1)!.trimEnd();
    expect(last).toMatch(RESULT_LINE);
    expect(last).toContain(`${out} written (new)`);
  });

  it('prints a plain progress line at every interval off a terminal, and the result line alone on stdout', async () => {
    const corpus = await corpusOf(300);
    const out = join(dir, 'index.snapshot');
    const { stdout, stderr } = await run(process.execPath, [...cli, '--out', out, '--progress-interval', '0.001'], { cwd: root, env: { ...process.env, CORPUS_DIR: corpus } });
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(stdout.trimEnd()).toMatch(RESULT_LINE);
    const lines = stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line).toMatch(/^corpus-mcp index: [a-z ]+(…|: \d[\d,]*\/[\d,]+ (extracted|documents) \(\d+%\).*)$/);
    expect(stderr).toMatch(/^corpus-mcp index: (reading files: [\d,]+\/300 extracted|indexing: [\d,]+\/300 documents) \(\d+%\)/m);
    expect(stderr).not.toContain('\x1b');
  });

  it.each(['0', 'soon'])('refuses --progress-interval %s with the range it takes', async (value) => {
    const failed = run(process.execPath, [...cli, '--out', join(dir, 'x.snapshot'), '--progress-interval', value], { cwd: root, env: { ...process.env, CORPUS_DIR: await corpusOf(1) } });
    await expect(failed).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(`--progress-interval must be a number of seconds from 0.001 to 3600, got "${value}"`) });
  });
});
