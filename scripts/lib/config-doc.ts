// docs/CONFIGURATION.md, rendered from the configuration schema: `npm run docs:config` writes it, and
// test/config-doc.test.ts fails when the file on disk differs.
import { GROUP_ABOUT, GROUPS, VARIABLES } from '../../src/config/schema.js';
import type { Variable } from '../../src/config/schema.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function shownDefault(variable: Variable): string {
  if (variable.default !== undefined) return `\`${String(variable.default)}\``;
  return variable.shownDefault ?? 'none';
}

function range(variable: Variable): string {
  return variable.range === undefined ? '' : `${variable.range.min}–${variable.range.max}`;
}

function effect(variable: Variable): string {
  return variable.requires === undefined ? variable.description : `${variable.description} Refused without \`${variable.requires}\`.`;
}

export function configurationDoc(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run docs:config`; edit the schema, not this file. -->',
    '',
    'Environment variables, all optional. Invalid values stop the start with one message listing every bad',
    'variable (exit code 2); blank values count as unset. A setting that has no effect without another one',
    'is refused too, so that a typo or a forgotten switch shows at boot. Booleans take `true`/`false`,',
    '`1`/`0` or `yes`/`no`. Secrets are never quoted in a message or a log.',
    '',
    ...GROUPS.map((group) => `- [${group}](#${group.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')})`),
  ];
  for (const group of GROUPS) {
    lines.push('', `## ${group}`, '', GROUP_ABOUT[group], '', '| variable | type | default | range | effect |', '|---|---|---|---|---|');
    for (const [name, variable] of Object.entries(VARIABLES)) {
      if (variable.group !== group) continue;
      lines.push(`| \`${name}\` | ${variable.type} | ${cell(shownDefault(variable))} | ${range(variable)} | ${cell(effect(variable))} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
