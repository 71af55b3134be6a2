// The README is what a newcomer reads first (its length and links: docs.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/mcp/tools/create-tools.js';

const readme = readFileSync('README.md', 'utf8');

describe('README.md', () => {
  it('names every tool the server offers', () => {
    expect(readme).toMatch(/five read-only tools/);
    expect(TOOLS).toHaveLength(5);
    for (const tool of ['search_documents', 'get_chunk', 'get_document']) expect(readme).toContain(tool);
  });

  it('says next to the Render button what to change before it works', () => {
    const render = readme.slice(readme.indexOf('**Render**'), readme.indexOf('\n\n', readme.indexOf('**Render**')));
    expect(render).toContain('repo=https://github.com/change-me/corpus-mcp');
    expect(render).toMatch(/replace\s+`change-me\/corpus-mcp` in the button's link with your fork/);
  });
});
