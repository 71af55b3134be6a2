// What "the same engine" means for a snapshot: the snapshot layout, the package version and a digest
// of the code that turns files into an index (corpus/ and search/). Any change to a tokenizer, chunker,
// extractor or ranking rule changes the digest, so a snapshot written by other code is refused and
// rebuilt instead of being served with terms or chunk offsets this code would not produce.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_LAYOUT } from '../search/index-snapshot.js';

/** Folders (beside this one) whose code shapes the index. */
const SHAPING = ['corpus', 'search'];
const CODE = /\.(js|ts)$/;
const NOT_CODE = /\.(test|property\.test)\.(js|ts)$|\.d\.ts$/;

let cached: Promise<string> | undefined;

/** `<layout>-<package version>-<16 hex digits of the shaping code's digest>`, computed once per process. */
export function engineVersion(packageVersion: string): Promise<string> {
  cached ??= digestShapingCode().then((digest) => `${SNAPSHOT_LAYOUT}-${packageVersion}-${digest}`);
  return cached;
}

async function digestShapingCode(): Promise<string> {
  const src = join(dirname(fileURLToPath(import.meta.url)), '..');
  const hash = createHash('sha256');
  for (const folder of SHAPING) {
    const entries = await readdir(join(src, folder), { recursive: true });
    const files = entries.filter((name) => CODE.test(name) && !NOT_CODE.test(name)).sort();
    for (const file of files) {
      hash.update(`${folder}/${file}\0`);
      hash.update(await readFile(join(src, folder, file)));
    }
  }
  return hash.digest('hex').slice(0, 16);
}
