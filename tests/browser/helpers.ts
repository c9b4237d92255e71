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

/** Screenshots and axe on desktop and phone widths; the page must not scroll sideways on the phone. */
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

/** Nothing sticks out sideways: the page fits the viewport's width. */
export async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
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
