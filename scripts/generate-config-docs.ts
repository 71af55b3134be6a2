// Writes docs/CONFIGURATION.md from the configuration schema (src/config/schema.ts).
import { writeFileSync } from 'node:fs';
import { configurationDoc } from './lib/config-doc.js';

const file = new URL('../docs/CONFIGURATION.md', import.meta.url);
writeFileSync(file, configurationDoc());
console.log(`wrote ${file.pathname}`);
