// Prints the Node.js options that size V8's heap to this machine, for the start command:
//   node $(node dist/src/node-args.js) dist/src/main.js          (what `npm start` runs)
// A running process cannot change its own heap limit, hence a separate step before it starts.
// V8 sizes its heap from the memory it sees and grows it lazily: on a large machine a busy server
// keeps hundreds of MB of garbage that a cap makes it collect sooner. The index itself lives outside
// the V8 heap (one ArrayBuffer), so the cap bounds only JS objects. Prints nothing when the
// configuration is invalid: main.ts then reports every problem. Touches the console, like main.ts.
import { ConfigError } from './config/config-error.js';
import { loadConfig } from './config/load-config.js';
import { heapLimitMb } from './heap-limit.js';

try {
  const config = loadConfig();
  console.log(`--max-old-space-size=${heapLimitMb(config.maxHeapMb)}`);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
}
