import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../src/config/schema.js';
import { configurationDoc } from '../scripts/lib/config-doc.js';
import { configVariables } from './support/config-variables.js';

const DOC = readFileSync(new URL('../docs/CONFIGURATION.md', import.meta.url), 'utf8');

describe('docs/CONFIGURATION.md', () => {
  it('is what the configuration schema generates (run `npm run docs:config` after changing src/config/schema.ts)', () => {
    expect(DOC).toBe(configurationDoc());
  });

  it.each([...configVariables()])('documents %s, which the configuration reads', (name) => {
    expect(Object.keys(VARIABLES)).toContain(name);
    expect(DOC).toContain(`| \`${name}\` |`);
  });

  it.each(Object.entries(VARIABLES))('gives %s a description, and a default it applies or names', (_name, variable) => {
    expect(variable.description.length).toBeGreaterThan(20);
    expect(variable.default !== undefined && variable.shownDefault !== undefined).toBe(false);
  });
});
