// The README is what a newcomer reads first: short enough to read in five minutes, and every file it
// points to exists.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/tools/create-tools.js';

const readme = readFileSync('README.md', 'utf8');

describe('README.md', () => {
  it('stays at most about 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('links only to files that exist', () => {
    const targets = [...readme.matchAll(/\]\(((?!https?:)[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(existsSync(target), target).toBe(true);
  });

  it('names every tool the server offers', () => {
    expect(readme).toMatch(/five read-only tools/);
    expect(TOOLS).toHaveLength(5);
    for (const tool of ['search_documents', 'get_chunk', 'get_document']) expect(readme).toContain(tool);
  });
});
