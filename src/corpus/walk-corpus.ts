import { lstatSync, type Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { compareSources, type DocumentFormat, type SkippedFile } from './document.js';
import { type FileIdentity, isOneOf } from './file-identity.js';
import { formatOfExtension, listExtensions } from './formats.js';

/** A file the walk decided to read. */
export interface FileCandidate {
  /** Where to read it (symbolic links already resolved). */
  absolutePath: string;
  /** Device and inode of the file when the walk saw it; the read refuses a path that now names another. */
  identity: { dev: number; ino: number };
  /**
   * Size in bytes, modification and status-change times (ms since the epoch) when the walk saw it.
   * The status-change time cannot be set back by hand (`cp -p`, `rsync -t` and tar restore only the
   * modification time), so together with the inode it tells an edit whose time was put back.
   */
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Path relative to the root, '/'-separated: the document's `source`. */
  source: string;
  format: DocumentFormat;
}

export interface WalkResult {
  files: FileCandidate[];
  skipped: SkippedFile[];
}

export interface WalkOptions {
  /**
   * Files never read, whatever path leads to them (a link, a hard link, a mount): the server's own
   * secrets (AUTH_TOKENS_FILE). Default none.
   */
  excluded?: readonly FileIdentity[];
}

const INDEXED = listExtensions('and');
const YIELD_EVERY = 4096;

/**
 * Folders nested deeper than this under the root are not read (the root is depth 0). The corpus
 * watcher watches to the same depth, so a deep tree costs neither a walk nor watches without end.
 */
export const MAX_FOLDER_DEPTH = 32;

/**
 * Whether an entry of this name is passed over, and never descended into: hidden entries and
 * node_modules. The corpus watcher ignores the same names.
 */
export function isPassedOver(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

interface Folder {
  real: string;
  /** How many folders down from the root: 0 for the root. */
  depth: number;
  /** '' for the root, else the '/'-separated relative path without a trailing slash. */
  source: string;
}

/**
 * Walks `rootReal` (an already resolved real path) and sorts every entry into files to read (each
 * handed to `onFile` when given, else returned) or skipped entries with a reason. Hidden entries and node_modules are recorded once, never descended into.
 * Symbolic links are followed only when they resolve inside the root; a folder is walked at most once,
 * which both breaks link loops and avoids indexing the same files twice. Real folders are walked before
 * any folder reached through a link, so a file keeps the source of its real location.
 *
 * Files in `excluded` are skipped by device and inode.
 *
 * Throws the underlying error if the root itself cannot be read.
 */
export async function walkCorpus(rootReal: string, onFile?: (file: FileCandidate) => void, { excluded = [] }: WalkOptions = {}): Promise<WalkResult> {
  const files: FileCandidate[] = [];
  // A caller that looks at each file once (the snapshot check) keeps none: 100k candidates kept to
  // the end of a walk cost more in garbage collection than the walk's own work.
  const found = onFile ?? ((file: FileCandidate) => void files.push(file));
  const skipped: SkippedFile[] = [];
  const visited = new Set<string>();
  const folders: Folder[] = [{ real: rootReal, source: '', depth: 0 }];
  const linkedFolders: Folder[] = [];

  const inside = (real: string): boolean => real === rootReal || real.startsWith(rootReal + sep);
  const relative = (folder: Folder, name: string): string => (folder.source === '' ? name : `${folder.source}/${name}`);

  for (let folder = folders.shift(); folder; folder = folders.shift() ?? linkedFolders.shift()) {
    if (visited.has(folder.real)) {
      skipped.push({ path: `${folder.source}/`, reason: 'symbolic link to a folder that is already indexed' });
      continue;
    }
    visited.add(folder.real);
    if (folder.depth > MAX_FOLDER_DEPTH) {
      skipped.push({ path: `${folder.source}/`, reason: `folder nested deeper than ${MAX_FOLDER_DEPTH} levels` });
      continue;
    }

    let entries: Dirent[];
    try {
      entries = await readdir(folder.real, { withFileTypes: true });
    } catch (error) {
      if (folder.source === '') throw error;
      skipped.push({ path: `${folder.source}/`, reason: `folder could not be read (${describeError(error)})` });
      continue;
    }
    entries.sort((a, b) => compareSources(a.name, b.name));

    for (const [k, entry] of entries.entries()) {
      // A turn of the event loop now and then: a folder of 100k files is a second of synchronous
      // calls, and the thread walking may have messages to answer meanwhile (the snapshot check's).
      if (k % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
      const source = relative(folder, entry.name);
      const absolute = join(folder.real, entry.name);
      if (entry.name.startsWith('.')) {
        skipped.push(entry.isDirectory() ? { path: `${source}/`, reason: 'hidden folder' } : { path: source, reason: 'hidden file' });
        continue;
      }
      if (isPassedOver(entry.name)) {
        skipped.push({ path: `${source}/`, reason: 'node_modules folder (installed packages, not documents)' });
        continue;
      }

      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      let target = absolute;
      if (entry.isSymbolicLink()) {
        try {
          target = await realpath(absolute);
        } catch (error) {
          skipped.push({ path: source, reason: linkError(error) });
          continue;
        }
        if (!inside(target)) {
          // The target is deliberately not named: skip reasons are shown to clients.
          skipped.push({ path: source, reason: 'symbolic link leads outside the corpus folder' });
          continue;
        }
        try {
          const info = await stat(target);
          isDirectory = info.isDirectory();
          isFile = info.isFile();
        } catch (error) {
          skipped.push({ path: source, reason: linkError(error) });
          continue;
        }
        if (isDirectory) {
          linkedFolders.push({ real: target, source, depth: folder.depth + 1 });
          continue;
        }
      }

      if (isDirectory) {
        folders.push({ real: target, source, depth: folder.depth + 1 });
      } else if (!isFile) {
        skipped.push({ path: source, reason: 'not a regular file (device, socket or pipe)' });
      } else {
        const extension = extname(entry.name);
        const format = formatOfExtension(extension)?.format;
        if (format) {
          // The file's identity as walked, so the read can tell whether the path still names it, and
          // its size and time for the snapshot manifest. Synchronous: one lstat per document, and
          // through the thread pool each costs several times the CPU (the walk runs in the build worker).
          let info: ReturnType<typeof lstatSync>;
          try {
            info = lstatSync(target);
          } catch (error) {
            skipped.push({ path: source, reason: `could not be read (${describeError(error)})` });
            continue;
          }
          if (!info?.isFile()) {
            skipped.push({ path: source, reason: 'not a regular file (device, socket or pipe)' });
            continue;
          }
          if (isOneOf(info, excluded)) {
            skipped.push({ path: source, reason: "the server's own secret (AUTH_TOKENS_FILE), never indexed" });
            continue;
          }
          found({ absolutePath: target, source, format, identity: { dev: info.dev, ino: info.ino }, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs });
        }
        else if (extension === '') skipped.push({ path: source, reason: `no file extension (indexed: ${INDEXED})` });
        else skipped.push({ path: source, reason: `unsupported file type ${extension} (indexed: ${INDEXED})` });
      }
    }
  }
  // Nothing the walk passes over was a document: see SkippedFile.operatorOnly.
  return { files, skipped: skipped.map((entry) => ({ ...entry, operatorOnly: true })) };
}

function linkError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'broken symbolic link (its target does not exist)';
  if (code === 'ELOOP') return 'symbolic link loop';
  return `symbolic link could not be followed (${describeError(error)})`;
}

/** A short, path-free description of a file system error. */
export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'it disappeared while loading';
    case 'EISDIR':
      return 'it is a folder';
    case undefined:
      return error instanceof Error ? error.message : String(error);
    default:
      return code;
  }
}
