import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { BASE, buy, PHONE, SCREENSHOTS, signIn, test } from './helpers';

// The report in Lighthouse's shape, measured in Chromium against `next start` at a laptop's first screen
// (1280×800) and a phone's (390×844): after a run on /check the report's title has the focus and the first fix is
// on screen; on a stored report the first fix is in the first screen and, everything folded, a visibility report
// stays short; a top fix's link opens its folded finding; the readiness report opens the same way.

const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;
const LAPTOP = { width: 1280, height: 800 };
const SIZES = [
  { name: 'desktop', size: LAPTOP, maxHeight: 2_500 },
  { name: 'phone', size: PHONE, maxHeight: 5_000 },
] as const;

/** A line of text: the first fix counts as on screen when its title line is whole inside it. */
const LINE = 30;

/** Where the first fix starts, from the top of the screen as it is scrolled now. */
async function firstFixTop(page: Page): Promise<number> {
  return (await page.getByTestId('top-fixes').getByRole('listitem').first().boundingBox())!.y;
}

/** The first screen only, as a person sees it before scrolling. */
async function firstScreen(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

test('after a run /check brings the report to the reader; the stored report: first fix in the first screen, short with everything folded', async ({ page, request, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.setViewportSize(LAPTOP);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  let reportPath = '';
  for (const { name, size } of SIZES) {
    await page.setViewportSize(size);
    // The phone run scrolls smoothly; the laptop run asks for no motion, and the result is the same.
    await page.emulateMedia({ reducedMotion: name === 'desktop' ? 'reduce' : 'no-preference' });
    await page.evaluate(() => window.scrollTo(0, 0));
    if (reportPath) {
      // One real run is enough to prove the page: the second is answered with the stored report, so this spec
      // spends one minute's share of the fixture site's outbound budget, not two.
      const stored = await (await request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } })).text();
      await page.route('**/api/session/checks/ai-visibility', (route) => route.fulfill({ status: 200, contentType: 'application/json', headers: { 'credits-remaining': '23', link: `</api${reportPath}>; rel="related"` }, body: stored }));
    }
    await page.getByLabel('Page address').fill(SHOP());
    await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
    await expect(page.getByTestId('calls-left')).toHaveText(reportPath ? '23' : '24', { timeout: 60_000 });
    await expect(page.locator('#result-title')).toBeFocused();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H2');
    // The title is brought to the top of the screen (smoothly on the phone: waited for, not timed).
    await expect.poll(() => page.evaluate(() => Math.round(document.getElementById('result-title')!.getBoundingClientRect().top))).toBeLessThan(40);
    await firstScreen(page, `layout-check-after-run-${name}`);
    const top = await firstFixTop(page);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(size.height - LINE);
    reportPath ||= (await page.getByRole('link', { name: 'permanent link to this report' }).getAttribute('href'))!;
  }
  await page.unrouteAll();

  for (const { name, size, maxHeight } of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`${BASE()}${reportPath}`);
    await firstScreen(page, `layout-report-${name}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `layout-report-${name}-full.png`), fullPage: true });
    const top = await firstFixTop(page);
    expect(top, `first fix at ${top} px on the ${name}`).toBeLessThan(size.height - LINE);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height, `page ${height} px tall on the ${name}`).toBeLessThanOrEqual(maxHeight);
    expect(await page.locator('.report details[open]').count()).toBe(0);
  }
  // The first top fix opens its folded finding; a category's bar opens its score table.
  const link = page.getByTestId('top-fixes').getByRole('link').first();
  const target = (await link.getAttribute('href'))!;
  await expect(page.locator(target)).not.toHaveAttribute('open');
  await link.click();
  await expect(page.locator(target)).toHaveAttribute('open', '');
  await expect(page.locator(target)).toBeInViewport();
  await expect(page.locator(`${target} .finding-body`)).toBeVisible();
  const category = page.getByTestId('category-scores').getByRole('link').first();
  await category.click();
  await expect(page.locator('.score-table')).toHaveAttribute('open', '');
  await expect(page.locator((await category.getAttribute('href'))!)).toBeInViewport();
  // Followed from another page, the address's fragment opens the finding too.
  await page.goto(`${BASE()}${reportPath}${target}`);
  await expect(page.locator(target)).toHaveAttribute('open', '');
});

test('a stored readiness report: the first step of the plan in the first screen, at 1280 and 390', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.locator('#result-title')).toBeFocused({ timeout: 30_000 });
  const reportPath = (await page.getByRole('link', { name: 'permanent link to this report' }).getAttribute('href'))!;
  for (const { name, size } of SIZES) {
    await page.setViewportSize(size);
    await page.goto(`${BASE()}${reportPath}`);
    await firstScreen(page, `layout-readiness-${name}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `layout-readiness-${name}-full.png`), fullPage: true });
    expect(await firstFixTop(page)).toBeLessThan(size.height - LINE);
    await expect(page.getByTestId('top-fixes')).toContainText('The first steps of the plan below');
    await expect(page.getByRole('heading', { name: 'Compare with the previous check of this workflow' })).toBeVisible();
  }
});
