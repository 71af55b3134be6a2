// What an index job is given and what it returns: the contract between the code that asks for an
// index (produce-index.ts, index-child.ts, the index CLI) and the code that does the work (index-job.ts,
// snapshot-check.ts).
import type { CorpusWarning, SkippedFile } from '../corpus/document.js';
import type { FileIdentity } from '../corpus/file-identity.js';
import type { SearchIndexOptions } from '../search/search-index.js';
import type { SnapshotRefusalReport } from './snapshot-file.js';
import type { SnapshotInFile } from './snapshot-in-file.js';

export interface IndexJob {
  /** Absolute path of the corpus folder. */
  corpusRoot: string;
  options: SearchIndexOptions;
  /** Identifies the code that builds indexes (see engine-version.ts). */
  engine: string;
  /** Snapshot file to boot from when it matches, and to write after a build. Default none. */
  indexFile?: string;
  /** Largest file read, in bytes; default the corpus loader's. */
  maxFileBytes?: number;
  /** Files never indexed, whatever path leads to them: the server's secrets (AUTH_TOKENS_FILE). Default none. */
  excludedFiles?: FileIdentity[];
  /**
   * Set when the caller has already checked `indexFile` and refused it (see produce-index.ts): the
   * job builds and writes a fresh snapshot without reading the old one again.
   */
  snapshotRefused?: SnapshotRefusalReport;
}

/** What the snapshot's header carries besides the index: what the tools report beside it. */
export interface SnapshotMeta {
  skipped: SkippedFile[];
  warnings: CorpusWarning[];
}

export interface IndexJobResult {
  /** The encoded index (see src/search/index-snapshot.ts), or the resident part of `source`. */
  bytes: Uint8Array;
  /**
   * Set when the index is served from its snapshot file (a boot's check: produce-index.ts): decode
   * from it; the sections it leaves in the file are read per document (snapshot-in-file.ts).
   */
  source?: SnapshotInFile;
  origin: 'snapshot' | 'build';
  /** Why the snapshot file was not used, when there is one configured and it was not. */
  refused?: SnapshotRefusalReport;
  /** Set when writing the snapshot after a build failed (the build itself is still served). */
  writeError?: string;
  timings: Record<string, number>;
}
