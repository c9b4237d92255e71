import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

// Shared by the browser specs: the console-error fixture, screenshots, axe, and buying a plan on the
// local Checkout stand-in.

export const BASE = () => process.env.PW_BASE_URL!;
export const STRIPE = () => process.env.PW_STRIPE_URL!;
export const SCREENSHOTS = path.resolve(__dirname, '../../test-results/screenshots');
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 720 };

export const test = base.extend<{ consoleErrors: string[] }>({
  // The fixture callback is named `provide`, not `use`, so the React hooks lint rule does not mistake it for a hook.
  consoleErrors: async ({ page }, provide) => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    // Which request failed: the console message alone does not say.
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await provide(errors);
    expect(errors, `console errors (failed requests: ${failed.join('; ') || 'none'})`).toEqual([]);
  },
});

/**
 * Takes out of `consoleErrors` the one line Chromium logs for a refused request the test caused on
 * purpose (e.g. a 401 for a wrong key): the expected answer, not a page error. Fails if it is not there.
 */
export function expectRefusedRequestLogged(consoleErrors: string[], status: number) {
  const expected = consoleErrors.filter((e) => new RegExp(`Failed to load resource: .* ${status} `).test(e));
  expect(expected, `one logged ${status}`).toHaveLength(1);
  consoleErrors.splice(consoleErrors.indexOf(expected[0]), 1);
}

export async function screenshot(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** axe on the page as it is; `strict` refuses every violation, otherwise only serious and critical ones. */
export async function expectAccessible(page: Page, name: string, { strict = false }: { strict?: boolean } = {}) {
  const results = await new AxeBuilder({ page }).analyze();
  // Every finding, minor ones included, is kept beside the screenshots for review.
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  fs.writeFileSync(
    path.join(SCREENSHOTS, `axe-${name}.json`),
    JSON.stringify(results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })), null, 2),
  );
  const refused = results.violations
    .filter((v) => strict || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(refused, `axe on ${page.url()}`).toEqual([]);
}

/** Nothing sticks out sideways: the page fits the viewport's width. */
export async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** A screenshot and strict axe at 1280 wide, then at 390 wide with nothing sticking out sideways, then back to 1280. */
export async function reviewBothWidths(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await screenshot(page, name);
  await expectAccessible(page, name, { strict: true });
  await page.setViewportSize(PHONE);
  await expectNoSidewaysScroll(page);
  await screenshot(page, `${name}-phone`);
  await expectAccessible(page, `${name}-phone`, { strict: true });
  await page.setViewportSize(DESKTOP);
}

/** From a plan's buy button (or the top-up form) through the hosted stand-in to the success page. */
export async function payOnHostedPage(page: Page) {
  await expect(page).toHaveURL(new RegExp(`^${STRIPE()}/checkout/pay/cs_`));
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page).toHaveURL(new RegExp(`^${BASE()}/purchase/success\\?session_id=cs_`));
}

export async function buy(page: Page, planId: string, buttonName: RegExp): Promise<{ key: string; sessionId: string }> {
  await page.goto(`${BASE()}/pricing`);
  await page.locator(`#${planId}`).getByRole('button', { name: buttonName }).click();
  await payOnHostedPage(page);
  const keyEl = page.getByTestId('new-key');
  await expect(keyEl).toBeVisible();
  const key = (await keyEl.textContent())!.trim();
  expect(key).toMatch(/^pac_live_[0-9A-Za-z]{40}$/);
  expect(page.url()).not.toContain(key);
  return { key, sessionId: new URL(page.url()).searchParams.get('session_id')! };
}

/**
 * The words the layout broke between two letters or digits, as "word (at: …|…)". A break after a hyphen,
 * slash, dot or underscore is a natural one and allowed; text in `pre` scrolls and is not wrapped at all.
 */
export async function midWordBreaks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const lineOf = (node: Text, i: number) => {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const r = range.getClientRects()[0];
      return r ? Math.round(r.top + r.height / 2) : null;
    };
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const parent = node.parentElement;
      // Addresses (class url) may break anywhere: they have no word to break in the middle of.
      if (!parent || parent.closest('pre, script, style, noscript, select, textarea, .visually-hidden, .url')) continue;
      for (const m of node.data.matchAll(/\S{2,}/g)) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size < 2) continue;
        const first = lineOf(node, m.index);
        for (let i = 1; i < m[0].length; i++) {
          const line = lineOf(node, m.index + i);
          if (line === null || line === first) continue;
          if (/[A-Za-z0-9]/.test(m[0][i - 1]) && /[A-Za-z0-9]/.test(m[0][i])) found.push(`${m[0]} (at: ${m[0].slice(0, i)}|${m[0].slice(i)})`);
          break;
        }
      }
    }
    return found;
  });
}

/** Signs in with a credits key in the form on the page. */
export async function signIn(page: Page, key: string) {
  await page.getByLabel(/^Credits key/).first().fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
