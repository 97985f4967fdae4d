/**
 * Headless Chromium for the console's end-to-end tests: Debian's `chromium` (`.ci/run` installs
 * it as root), driven by playwright-core, which downloads no browser of its own. The flags keep
 * Chromium from reaching for Google's services, which a closed network refuses one by one.
 * Playwright gives each launch a new empty profile.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium; CHROMIUM_PATH names another)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, locale: 'es-MX' };
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'es-MX' };

/** Opens a page that records what the page itself reports going wrong: script errors and console errors. */
export async function openPage(browser: Browser, options: BrowserContextOptions): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return { page, errors };
}

/** Signs in with `key` by typing it, as a person would. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/consola`);
  await page.locator('input[name=key]').fill(key);
  await page.keyboard.press('Enter');
}

/**
 * README's screenshots are docs/console/<name>.png, written by the tests when UPDATE_SCREENSHOTS=1
 * (`UPDATE_SCREENSHOTS=1 npx vitest run --project sr11 test/browser`); otherwise into the temp
 * folder, so a test run leaves the checkout as it was.
 */
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/console/', import.meta.url)) : path.join(tmpdir(), 'branch-agent-console');

/** A screenshot, written whole or not at all (two test runs side by side may both write it); answers its size. */
export async function saveScreenshot(page: Page, name: string): Promise<number> {
  const png = await page.screenshot({ fullPage: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, png);
  renameSync(temporary, file);
  return png.length;
}

/** Nothing wider than the window: no sideways scrolling at this size. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/**
 * Every visible text against the background it is drawn on: WCAG's contrast ratio, at least 4.5:1
 * (3:1 for large text). Returns what falls short.
 */
export function contrastProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgba = (css: string) => {
      const [r = 0, g = 0, b = 0, a = 1] = (/\(([^)]+)\)/.exec(css)?.[1] ?? '0 0 0 0').split(/[\s,/]+/).map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const channel = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (element: Element | null) => {
      for (let e = element; e; e = e.parentElement) {
        const color = rgba(getComputedStyle(e).backgroundColor);
        if (color.a > 0) return color;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    const problems: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement!;
      const style = getComputedStyle(element);
      if (!node.textContent?.trim() || element.getClientRects().length === 0 || style.visibility === 'hidden') continue;
      const [light, dark] = [luminance(rgba(style.color)), luminance(background(element))].sort((a, b) => b - a) as [number, number];
      const ratio = (light + 0.05) / (dark + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) problems.push(`"${node.textContent.trim().slice(0, 40)}": ${ratio.toFixed(2)}:1`);
    }
    return problems;
  });
}
