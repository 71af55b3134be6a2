// CORPUS_WATCH: notices files added, changed, removed or renamed under the corpus folder and asks for
// a reload once the folder has been quiet for `debounceMs`, so a sync that writes a hundred files
// causes one rebuild, not a hundred. Watching uses chokidar (one fs.watch per folder on Linux).
//
// Symbolic links are never followed: a link leading out of the corpus is not indexed (walk-corpus.ts),
// so watching its target would only cost memory and time (a link to /usr made the watcher crawl
// gigabytes), and a link leading inside leads to a folder that is watched where it really is. The
// watch stops at the depth the walk stops at.
import { basename, resolve } from 'node:path';
import { watch } from 'chokidar';
import { isPassedOver, MAX_FOLDER_DEPTH } from '../corpus/walk-corpus.js';
import type { Logger } from '../logger.js';

export interface CorpusWatcherOptions {
  /** Folder to watch, recursively. */
  root: string;
  /** Quiet time after the last change before `onChange` runs, in milliseconds, ≥ 1. */
  debounceMs: number;
  /** Called once per burst of changes, with how many events the burst held. */
  onChange: (events: number) => void;
  logger: Logger;
  /** Paths never to react to (e.g. the snapshot file, should it live inside the corpus). */
  ignorePaths?: readonly string[];
}

export interface CorpusWatcher {
  /** Resolves once the initial scan is done and changes are being reported. */
  ready: Promise<void>;
  /** How many folders are being watched. */
  watchedFolders(): number;
  close(): Promise<void>;
}

export function watchCorpus(options: CorpusWatcherOptions): CorpusWatcher {
  const { root, debounceMs, onChange, logger, ignorePaths = [] } = options;
  if (!Number.isFinite(debounceMs) || debounceMs < 1) throw new RangeError(`watchCorpus: debounceMs must be ≥ 1, got ${debounceMs}`);
  const ignored = ignorePaths.map((path) => resolve(path));
  // The same entries the corpus walk passes over (hidden, node_modules), plus the ignored paths and
  // their temporary siblings (a snapshot is written as <file>.<pid>-<thread>.tmp, then renamed).
  const skip = (path: string): boolean => {
    if (path !== root && isPassedOver(basename(path))) return true;
    return ignored.some((p) => path === p || path.startsWith(`${p}.`));
  };
  const watcher = watch(root, { ignoreInitial: true, ignored: skip, persistent: true, followSymlinks: false, depth: MAX_FOLDER_DEPTH });
  let timer: NodeJS.Timeout | undefined;
  let events = 0;
  watcher.on('all', () => {
    events += 1;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const count = events;
      events = 0;
      onChange(count);
    }, debounceMs);
  });
  watcher.on('error', (error) => logger.warn({ err: error }, 'watching the corpus folder failed for some files'));
  const ready = new Promise<void>((resolveReady) => watcher.once('ready', () => resolveReady()));
  return {
    ready,
    watchedFolders: () => Object.keys(watcher.getWatched()).length,
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
