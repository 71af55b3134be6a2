// The chunk-vector cache on disk, beside the index snapshot (INDEX_FILE + ".vectors"), so a restart or
// a reload embeds only new or changed chunks. Written in the snapshot file's format by its code (the
// bytes, then their digest: snapshot-digest.ts; a temporary file, fsync, rename over the target), in pieces so that a save of
// hundreds of megabytes never holds the event loop; a file that is cut short or altered is refused
// and the chunks are embedded again.
import { readFileSync } from 'node:fs';
import { DIGEST_NAME, intactBytes } from '../index-service/snapshot-digest.js';
import { removeLeftoverTemporaryFiles, writeSnapshotFileInPieces } from '../index-service/snapshot-file.js';
import { SearchError } from '../search/search-error.js';
import { VectorCache } from '../search/vector-cache.js';
import type { VectorCacheStore } from './semantic-service.js';

/** The path of the vector cache kept beside the index snapshot `indexFile`. */
export function vectorCachePath(indexFile: string): string {
  return `${indexFile}.vectors`;
}

/**
 * A store that keeps the cache in `path`. `load` answers undefined (and says why through `onRefused`)
 * when there is no usable file; it first removes temporary files a save killed mid-way left beside it
 * (each up to the size of the cache), naming them through `onLeftover`.
 */
export function vectorCacheFile(path: string, onRefused: (reason: string) => void, onLeftover: (file: string) => void = () => undefined): VectorCacheStore {
  return {
    load() {
      for (const file of removeLeftoverTemporaryFiles(path)) onLeftover(file);
      let file: Buffer;
      try {
        file = readFileSync(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') onRefused(`${path} cannot be read (${code ?? String(error)})`);
        return undefined;
      }
      const bytes = intactBytes(file);
      if (bytes === undefined) {
        onRefused(`${path} fails its checksum (${DIGEST_NAME}): the file was cut short, damaged or edited`);
        return undefined;
      }
      try {
        return VectorCache.fromBytes(bytes);
      } catch (error) {
        if (!(error instanceof SearchError)) throw error;
        onRefused(`${path}: ${error.message}`);
        return undefined;
      }
    },
    save(cache) {
      return writeSnapshotFileInPieces(path, cache.pieces());
    },
  };
}
