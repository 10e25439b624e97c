/** Debian's headless Chromium for the HTML tests, offline: no network, no first-run or update traffic. */
import { chromium, type Browser } from 'playwright-core';
import { toolPath } from '../helpers/tools.ts';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: toolPath('chromium') ?? undefined,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
