// The manifest a snapshot carries: every file the walk would read, with its size, modification time
// and a digest of its text. A snapshot is served only when the corpus still matches it.
//
// Checking reads no file whose size and modification time are unchanged (as git and make do); a file
// whose time changed but whose size did not is read again and its digest compared, so touching a
// file, or copying the folder into an image, does not force a rebuild. The manifest is taken
// *before* the files are read for a build: a file edited during the build then differs from it at
// the next check and is read again, never trusted stale.
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { walkCorpus } from '../corpus/walk-corpus.js';
import type { FileCandidate } from '../corpus/walk-corpus.js';
import { DEFAULT_EXTRACTION_LIMITS, extractDocument } from '../corpus/extract/extract-document.js';
import { readDocument } from '../corpus/read-document.js';

/** One candidate file: `[source, size in bytes, mtime in ms, digest of its text or null when skipped]`. */
export type ManifestEntry = [source: string, size: number, mtimeMs: number, digest: string | null];

/** Sorted by source. */
export type Manifest = ManifestEntry[];

interface FileState {
  candidate: FileCandidate;
  size: number;
  mtimeMs: number;
}

/** The digest of a document's text as the manifest stores it. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** Walks `root` and stats every candidate file (synchronously: this runs in the build worker). */
export async function statCorpus(root: string): Promise<FileState[]> {
  let files: FileCandidate[];
  try {
    files = (await walkCorpus(realpathSync(root))).files;
  } catch {
    // A missing or unreadable root: the corpus loader reports it, with the words an operator needs.
    return [];
  }
  const states: FileState[] = [];
  for (const candidate of files) {
    try {
      const info = statSync(candidate.absolutePath);
      states.push({ candidate, size: info.size, mtimeMs: info.mtimeMs });
    } catch {
      // Gone between the walk and the stat: the read will skip it too; -1 never matches a real size.
      states.push({ candidate, size: -1, mtimeMs: -1 });
    }
  }
  return states.sort((a, b) => (a.candidate.source < b.candidate.source ? -1 : a.candidate.source > b.candidate.source ? 1 : 0));
}

/** The manifest of files stated before a build, with the digests of the documents it produced. */
export function manifestOf(states: readonly FileState[], digests: ReadonlyMap<string, string>): Manifest {
  return states.map(({ candidate, size, mtimeMs }) => [candidate.source, size, mtimeMs, digests.get(candidate.source) ?? null]);
}

/**
 * Why the corpus at `root` no longer matches `manifest`, in words for the log, or undefined when it
 * matches. `maxFileBytes` must be the limit the build used (a file's digest is of what it read).
 */
export async function manifestDifference(manifest: Manifest, root: string, maxFileBytes: number): Promise<string | undefined> {
  const states = await statCorpus(root);
  const stored = new Map(manifest.map((entry) => [entry[0], entry]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const { candidate, size, mtimeMs } of states) {
    const entry = stored.get(candidate.source);
    stored.delete(candidate.source);
    if (entry === undefined) {
      added.push(candidate.source);
      continue;
    }
    if (entry[1] !== size) {
      changed.push(candidate.source);
      continue;
    }
    if (entry[2] === mtimeMs) continue;
    const outcome = await readDocument(candidate, maxFileBytes, (format, input) => extractDocument(format, input, DEFAULT_EXTRACTION_LIMITS));
    const digest = outcome.kind === 'document' ? textDigest(outcome.document.text) : null;
    if (digest !== entry[3]) changed.push(candidate.source);
  }
  const removed = [...stored.keys()];
  if (added.length + changed.length + removed.length === 0) return undefined;
  const part = (count: number, what: string, examples: string[]) =>
    count === 0 ? [] : [`${count} ${what} (${examples.slice(0, 3).map((s) => JSON.stringify(s)).join(', ')}${count > 3 ? ', …' : ''})`];
  return [...part(added.length, 'added', added), ...part(changed.length, 'changed', changed), ...part(removed.length, 'removed', removed)].join(', ');
}
