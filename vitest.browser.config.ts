import { defineConfig } from 'vitest/config';

// `npm run test:browser`: the pages a person sees, in Debian's Chromium. Kept out of `npm test`, which
// must pass on a machine with Node.js and npm alone.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
