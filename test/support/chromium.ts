// Debian's Chromium (or CHROMIUM_PATH) for the browser tests, with what would reach beyond the machine
// (background networking, component updates, sync, QUIC) turned off.
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}
