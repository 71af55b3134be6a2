// The README is what a newcomer reads first (its length and links: docs.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTools } from '../src/mcp/tools/create-tools.js';
import { DEFAULT_TOOL_LIMITS } from '../src/mcp/tools/tool-limits.js';

const readme = readFileSync('README.md', 'utf8');

describe('README.md', () => {
  it('names every tool the server offers, and says how many', () => {
    const tools = createTools(DEFAULT_TOOL_LIMITS);
    const count = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][tools.length];
    expect(readme).toMatch(new RegExp(`\\b${count} read-only tools`));
    for (const { name } of tools) expect(readme).toContain(`\`${name}\``);
  });

  it('says next to the Render button what to change before it works', () => {
    const render = readme.slice(readme.indexOf('**Render**'), readme.indexOf('\n\n', readme.indexOf('**Render**')));
    expect(render).toContain('repo=https://github.com/change-me/corpus-mcp');
    expect(render).toMatch(/replace\s+`change-me\/corpus-mcp` in the button's link with your fork/);
  });
});
