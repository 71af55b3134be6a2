// Entry of a thread that reads corpus files ahead of the loader (file-prefetch.ts): its share of the
// files, in the loader's order, at most `ahead` files in front of it, each read to its end into one
// buffer and thrown away. A file is opened as the loader opens it (no final symbolic link, no
// blocking on a FIFO) and read only when it is still the regular file the walk saw, within the size
// limit; anything else, and any error, is left to the loader, which reads and judges every file itself.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { PrefetchWork } from './file-prefetch.js';

const { paths, identities, maxFileBytes, first, stride, ahead, progress } = workerData as PrefetchWork;
const files = paths.split('\0');
const buffer = Buffer.allocUnsafe(256 * 1024);

/** Waits until file `i` is within `ahead` of the loader; false once the loader has stopped. */
function mayRead(i: number): boolean {
  for (;;) {
    const done = Atomics.load(progress, 0);
    if (done < 0) return false;
    if (i <= done + ahead) return true;
    Atomics.wait(progress, 0, done, 100);
  }
}

function warm(i: number): void {
  let fd: number;
  try {
    fd = openSync(files[i] as string, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.dev !== identities[2 * i] || info.ino !== identities[2 * i + 1] || info.size > maxFileBytes) return;
    let read = 0;
    while (read <= info.size) {
      const count = readSync(fd, buffer, 0, buffer.length, null);
      if (count === 0) break;
      read += count;
    }
  } catch {
    // The loader meets the same error and reports it.
  } finally {
    closeSync(fd);
  }
}

for (let i = first; i < files.length && mayRead(i); i += stride) {
  // A file the loader has read already is in the cache, or was never going to be.
  if (i >= Atomics.load(progress, 0)) warm(i);
}
