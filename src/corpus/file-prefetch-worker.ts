// Entry of a thread that reads corpus files ahead of the loader (file-prefetch.ts): its share of the
// files, in the loader's order, never more than `ahead` files or `aheadBytes` bytes in front of it,
// each read to its end into one buffer and thrown away. A file is opened as the loader opens it
// (open-candidate.ts) and read only when the loader would read it; anything else, and any error, is
// left to the loader, which reads and judges every file itself.
import { closeSync, readSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { PrefetchWork } from './file-prefetch.js';
import { openCandidate } from './open-candidate.js';

const { paths, identities, sizesBefore, maxFileBytes, first, stride, ahead, aheadBytes, progress } = workerData as PrefetchWork;
const files = paths.split('\0');
const buffer = Buffer.allocUnsafe(256 * 1024);

/**
 * Waits until file `i` is near enough the loader; returns the loader's progress then (files done),
 * or -1 once it has stopped.
 */
function waitForRoom(i: number): number {
  for (;;) {
    const done = Atomics.load(progress, 0);
    if (done < 0) return done;
    // The file the loader reads next may always be read, however large.
    if (i <= done || (i - done <= ahead && (sizesBefore[i + 1] as number) - (sizesBefore[done] as number) <= aheadBytes)) return done;
    // Woken by the loader's progress; the time limit only bounds a missed wake-up.
    Atomics.wait(progress, 0, done, 100);
  }
}

function warm(i: number): void {
  const opened = openCandidate({ absolutePath: files[i] as string, identity: { dev: identities[2 * i] as number, ino: identities[2 * i + 1] as number } }, maxFileBytes);
  if (typeof opened === 'string') return;
  try {
    let read = 0;
    while (read <= opened.size) {
      const count = readSync(opened.fd, buffer, 0, buffer.length, null);
      if (count === 0) break;
      read += count;
    }
  } catch {
    // The loader meets the same error and reports it.
  } finally {
    closeSync(opened.fd);
  }
}

for (let i = first; i < files.length; i += stride) {
  const done = waitForRoom(i);
  if (done < 0) break;
  // A file the loader has read already is in the cache, or was never going to be.
  if (i >= done) warm(i);
}
