import fs from 'node:fs';
import { expect, type Page } from '@playwright/test';
import { markdownText } from '../../lib/checks/markdown-text';
import {
  BASE, buy, expectAccessible, expectNoSidewaysScroll, midWordBreaks, PHONE, screenshot, signIn, test,
} from './helpers';

// The report as a designed report, in Chromium against `next start`: on a stored report's permanent address,
// the header and the fixes to make first fill the first screen of a desktop and come before the crawler table on
// a phone; the exports work (the file's name, the Markdown with every finding, the permalink, print); no raw
// field name appears anywhere in a report; axe finds nothing.

const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;
/** The first screen of a laptop. */
const DESKTOP_SCREEN = { width: 1280, height: 800 };
/** A raw field name as a report once showed one: `rendering · jsOnlyShare`. */
const RAW_FIELD_PAIR = /\b[a-z]+[A-Z]\w* · [a-z]+[A-Z]/;

async function box(page: Page, testId: string) {
  return (await page.getByTestId(testId).first().boundingBox())!;
}

test('a stored report: top fixes in the first screen, exports complete, words not field names, at 1280 and 390', async ({ page, request, consoleErrors: _ }) => {
  test.setTimeout(240_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await page.getByLabel('Page address').fill(SHOP());
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.getByTestId('top-fixes')).toBeVisible({ timeout: 60_000 });
  const reportPath = (await page.getByRole('link', { name: 'permanent link to this report' }).getAttribute('href'))!;
  const body = (await (await request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    checkedAt: string;
    limits: string[];
    report: { checkedUrl: string; findings: Array<{ id: string; fix: string; pointsLost: number }> };
  };
  expect(body.report.findings.filter((f) => f.pointsLost > 0).length).toBeGreaterThanOrEqual(3);

  await page.setViewportSize(DESKTOP_SCREEN);
  await page.goto(`${BASE()}${reportPath}`);
  const report = page.getByTestId('report');
  // Desktop: the fixes start inside the first screen, below the header with score, verdict, date and the score by
  // category; the first two are whole there (the rest of the list may run past it).
  const fixes = await box(page, 'top-fixes');
  const second = (await page.getByTestId('top-fixes').getByRole('listitem').nth(1).boundingBox())!;
  expect(second.y + second.height).toBeLessThanOrEqual(DESKTOP_SCREEN.height);
  expect((await box(page, 'category-scores')).y).toBeLessThan(fixes.y);
  expect((await box(page, 'report-verdict')).y).toBeLessThan(fixes.y);
  await expect(report.getByTestId('report-summary')).toBeVisible();
  await expect(report.locator('.report-date time')).toHaveAttribute('datetime', body.checkedAt);
  const fixLinks = page.getByTestId('top-fixes').getByRole('link');
  expect(await fixLinks.count()).toBeGreaterThanOrEqual(3);
  // Each top fix links to its folded finding in the list below, and opens it.
  const target = (await fixLinks.first().getAttribute('href'))!;
  await fixLinks.first().click();
  await expect(page.locator(target)).toBeInViewport();
  await expect(page.locator(target)).toHaveAttribute('open', '');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'report-designed');
  await expectAccessible(page, 'report-designed', { strict: true });

  // No raw field name anywhere, with every folded part open (the export menu is a phone's).
  await report.locator('details:not(.report-actions-menu)').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  for (const f of body.report.findings) await expect(report).not.toContainText(f.id);
  expect(await report.innerText()).not.toMatch(RAW_FIELD_PAIR);
  await expectAccessible(page, 'report-designed-open', { strict: true });
  await page.reload();

  // Exports: the JSON under a name with the host and the day; the Markdown with every finding, the date and the
  // permalink; the permalink itself.
  const download = page.waitForEvent('download');
  await report.getByRole('button', { name: 'Download JSON' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`ai-visibility-${new URL(SHOP()).host}-${body.checkedAt.slice(0, 10)}.json`);
  expect(JSON.parse(fs.readFileSync((await file.path())!, 'utf8'))).toEqual(body);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await report.getByRole('button', { name: 'Copy as Markdown' }).click();
  const markdown = await page.evaluate(() => navigator.clipboard.readText());
  for (const f of body.report.findings) {
    expect(markdown).toContain(`Finding id: ${f.id}`);
    expect(markdown).toContain(markdownText(f.fix));
  }
  const permalink = new URL(reportPath, BASE()).href;
  expect(markdown).toContain(`Permalink: ${permalink}`);
  expect(markdown).toMatch(/^# AI visibility: .*\n\nChecked \d{1,2} \w+ \d{4}, \d\d:\d\d UTC · Permalink: /);
  expect(markdown).not.toContain('structuredContent');
  await report.getByRole('button', { name: 'Copy permalink' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(permalink);

  // Print: the report alone, its folded parts open, no navigation and no buttons.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await expect(report.getByRole('button', { name: 'Print' })).toBeHidden();
  await expect(report.getByTestId('crawler-matrix')).toBeVisible();
  await expect(report.getByText(body.limits[0])).toBeVisible();
  await page.pdf({ path: 'test-results/screenshots/report-print.pdf' });
  await screenshot(page, 'report-print');
  await page.emulateMedia({ media: 'screen' });
  await expect(report.getByTestId('crawler-matrix')).toBeHidden();

  // Phone: the top fixes come before the crawlers; nothing scrolls sideways or breaks mid-word.
  await page.setViewportSize(PHONE);
  const phoneFixes = await box(page, 'top-fixes');
  const crawlers = (await report.getByRole('heading', { name: 'Crawlers', exact: true }).boundingBox())!;
  expect(phoneFixes.y + phoneFixes.height).toBeLessThan(crawlers.y);
  await expectNoSidewaysScroll(page);
  await report.locator('details:not(.report-actions-menu)').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  await expectNoSidewaysScroll(page);
  expect(await midWordBreaks(page)).toEqual([]);
  await screenshot(page, 'report-designed-phone');
  await expectAccessible(page, 'report-designed-phone', { strict: true });
});

test('the examples: every report opens with its header and exports, and shows no raw field name; the home page their first screens', async ({ page, consoleErrors: _ }) => {
  await page.goto(`${BASE()}/examples`);
  const reports = page.getByTestId('report');
  await expect(reports).toHaveCount(3);
  for (const i of [0, 1, 2]) {
    await expect(reports.nth(i).getByRole('button', { name: 'Download JSON' })).toBeVisible();
    await expect(reports.nth(i).getByRole('button', { name: 'Print' })).toBeVisible();
    // No stored report, no permalink to copy.
    await expect(reports.nth(i).getByRole('button', { name: 'Copy permalink' })).toHaveCount(0);
    await reports.nth(i).locator('details:not(.report-actions-menu)').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    expect(await reports.nth(i).innerText()).not.toMatch(RAW_FIELD_PAIR);
  }
  await expect(reports.nth(0).getByTestId('top-fixes').getByRole('listitem')).toHaveCount(4);
  await page.setViewportSize(PHONE);
  await expectNoSidewaysScroll(page);
  expect(await midWordBreaks(page)).toEqual([]);
  await screenshot(page, 'examples-open-phone');

  // The home page: each example's header, categories and fixes, each fix a link into the full example.
  await page.setViewportSize(DESKTOP_SCREEN);
  await page.goto(`${BASE()}/`);
  const excerpts = page.getByTestId('report');
  await expect(excerpts).toHaveCount(3);
  await expect(excerpts.nth(0).getByTestId('top-fixes').getByRole('link').first()).toHaveAttribute('href', /^\/examples#example-ai-visibility-finding-\d+$/);
  await expect(excerpts.getByRole('button', { name: 'Download JSON' })).toHaveCount(0);
  await excerpts.nth(0).getByTestId('top-fixes').getByRole('link').first().click();
  await expect(page).toHaveURL(/\/examples#example-ai-visibility-finding-\d+$/);
  await expect(page.locator('.finding-fold[open]')).toHaveCount(1);
  await page.goto(`${BASE()}/`);
  await screenshot(page, 'home-excerpts');
});
