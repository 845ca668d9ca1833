// The browsers the tests drive. The server holds leads sent by a browser that says it is automated
// (`navigator.webdriver`, a "HeadlessChrome" user agent), so the default browser must look like a
// person's: a phone's Chrome user agent and no automation flag. A test of a bot launches the
// headless browser as it comes (`BOT_LAUNCH`).
import type { LaunchOptions } from '@playwright/test';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A person's browser: `navigator.webdriver` is false, as in a browser nobody remote-controls. */
export const PERSON_LAUNCH: LaunchOptions = {
  executablePath,
  args: [...ARGS, '--disable-blink-features=AutomationControlled'],
};

/** Chrome on an Android phone, as most visitors come (the headless default names "HeadlessChrome"). */
export const PERSON_USER_AGENT =
  'Mozilla/5.0 (Linux; Android 14; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36';

/** Headless Chromium with its default automation traits: what a simple bot drives. */
export const BOT_LAUNCH: LaunchOptions = { executablePath, args: ARGS };
