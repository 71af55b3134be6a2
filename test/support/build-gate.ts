// A test hook loaded with `--import` into a spawned server: the build process (index-child.ts, which
// inherits the server's node options) stops right after it has sent its first progress report of the
// 'read' phase, until the test opens the gate by writing to the named pipe BUILD_GATE_FIFO. So a test
// sees a build in the middle of its work for as long as it likes, with no timing involved: each build
// process (the boot's, then each reload's) waits once.
import { readFileSync } from 'node:fs';

const gate = process.env.BUILD_GATE_FIFO;
if (gate !== undefined && process.send !== undefined && /index-child\.[jt]s$/.test(process.argv[1] ?? '')) {
  const send = process.send.bind(process) as (message: unknown, ...rest: unknown[]) => boolean;
  let waited = false;
  process.send = ((message: unknown, ...rest: unknown[]) => {
    // The message is written to the channel now (an IPC write is tried at once), before this thread blocks.
    const sent = send(message, ...rest);
    const progress = (message as { progress?: { phase?: string } }).progress;
    if (!waited && progress?.phase === 'read') {
      waited = true;
      // Opening a FIFO for reading blocks until a writer opens it; the read then lasts until it closes.
      readFileSync(gate);
    }
    return sent;
  }) as typeof process.send;
}
