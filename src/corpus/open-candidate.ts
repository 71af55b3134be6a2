// How a file the walk listed is opened for reading, by the loader (read-document.ts) and by the
// read-ahead threads (file-prefetch-worker.ts) alike: the one rule for what may be read.
//
// The walk checked this path earlier; it may have been swapped since. O_NOFOLLOW refuses a final
// symbolic link, O_NONBLOCK keeps a FIFO from blocking the open forever, and the handle's own stat
// must be the file the walk saw: a folder on the way swapped for a link out of the corpus leads to
// another inode. Synchronous: corpora are read in the build process, where nothing waits on the event
// loop, and through the thread pool each of a file's four calls costs several times the CPU.
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { formatBytes } from './format-bytes.js';
import { describeError, type FileCandidate } from './walk-corpus.js';

/**
 * The open descriptor of the file the walk saw at `candidate`, and its size, or why it may not be
 * read (a skip reason). The caller closes the descriptor.
 */
export function openCandidate(candidate: Pick<FileCandidate, 'absolutePath' | 'identity'>, maxFileBytes: number): { fd: number; size: number } | string {
  let fd: number;
  try {
    fd = openSync(candidate.absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return `could not be read (${describeError(error)})`;
  }
  let refused: string | undefined;
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) refused = 'not a regular file (device, socket or pipe)';
    else if (info.dev !== candidate.identity.dev || info.ino !== candidate.identity.ino) refused = 'it was replaced by another file while loading';
    else if (info.size > maxFileBytes) refused = tooLarge(info.size, maxFileBytes);
    else return { fd, size: info.size };
  } catch (error) {
    refused = `could not be read (${describeError(error)})`;
  }
  closeSync(fd);
  return refused;
}

export function tooLarge(size: number, limit: number): string {
  return `larger than the ${formatBytes(limit)} limit (${formatBytes(size)})`;
}
