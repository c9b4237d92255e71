import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { CONFIG_VARIABLES, VARIABLES_READ_ELSEWHERE } from '@/lib/config';
import { CAPABILITY_KEYS } from '@/lib/checks/readiness/schema';
import { HAZARD_RULES } from '@/lib/checks/readiness/hazards';
import { PHASES } from '@/lib/checks/readiness/plan';
import { READINESS_VERDICT } from '@/lib/checks/readiness/labels';
import { RUBRIC as VISIBILITY_RUBRIC } from '@/lib/checks/visibility/rubric';
import { CRAWLER_ROLES } from '@/lib/checks/visibility/crawlers';
import { RUBRIC as ENDPOINT_RUBRIC } from '@/lib/checks/payment-endpoint/rubric';
import { CAPABILITY_GUIDE } from '@/lib/checks/readiness/guide';
import { DOCS_PAGES } from '@/lib/docs/pages';
import visibilityExample from '@/lib/checks/visibility/example.json';
import endpointExample from '@/lib/checks/payment-endpoint/example.json';
import { BASE, buy, DESKTOP, expectRefusedRequestLogged, PHONE, screenshot, SCREENSHOTS, signIn, test } from './helpers';

// Every page a person reads, walked in Chromium for the names machines use: a finding's id, a rubric item's id, a
// capability key, an enum value, a JSON member's camelCase name, an environment variable, an ISO timestamp. THE RULE: the words a buyer reads (prose,
// headings, labels, table cells, buttons, a select's options) name things in words. Excluded, because there a
// machine's name is what the reader came for: text inside <code>, <pre> and <kbd> (commands, JSON, a credits key, a
// call's reference, a settings reference's variable names, an evidence example), and anything marked
// data-machine-text. Folded parts (<details>) are opened first: a reader can open them. Only text shown counts.
//
// The ids come from the checks' own registries and from the very reports the pages show (every `id` and enum
// member in their JSON), so a finding or an item added later is in the list without editing this file. A name
// made of one plain word ("cors", "search", "implemented") is not in the list: it reads as a word.

/** A laptop's first screen. */
const SCREEN = { width: 1280, height: 800 };
const SHOP = () => `http://${process.env.PW_FIXTURE_HOST}/teapots`;

/** JSON members whose values are machine names wherever they are found in a report. */
const MACHINE_MEMBERS = new Set(['id', 'capability', 'role', 'state', 'kind', 'phase', 'verdict', 'category', 'status', 'item', 'before', 'after']);
/** A name only a machine writes: with a hyphen, an underscore or a dot between letters, or in camelCase. */
const MACHINE_SHAPED = /^(?:[a-z0-9]+(?:[-_.][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)$/;

/** Every machine-shaped value of those members, anywhere in a JSON body. */
function machineNames(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) machineNames(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (MACHINE_MEMBERS.has(k) && typeof v === 'string' && MACHINE_SHAPED.test(v)) into.add(v);
      else machineNames(v, into);
    }
  }
  return into;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The registries' names: the checks', their rubrics', the crawler roles, the settings. */
function registryNames(): Set<string> {
  const names = new Set<string>([
    ...CAPABILITY_KEYS,
    ...HAZARD_RULES.map((h) => h.id),
    ...PHASES,
    ...Object.keys(READINESS_VERDICT),
    ...CRAWLER_ROLES,
    ...VISIBILITY_RUBRIC.map((i) => i.id),
    ...ENDPOINT_RUBRIC.flatMap((i) => [i.id, ...Object.keys(i.findings)]),
    ...machineNames(visibilityExample),
    ...machineNames(endpointExample),
    // The readiness findings' ids are a capability and what is wrong with it.
    ...CAPABILITY_KEYS.flatMap((k) => ['missing', 'partial', 'unknown', 'no-evidence', 'evidence-unverifiable'].map((s) => `${k}.${s}`)),
  ]);
  return new Set([...names].filter((n) => MACHINE_SHAPED.test(n)));
}

/** The list of patterns: each a name, and what it stands for (said when it matches). */
function patterns(extra: Iterable<string> = []): Array<[RegExp, string]> {
  const ids = [...new Set([...registryNames(), ...extra])].filter((n) => MACHINE_SHAPED.test(n));
  const variables = [...CONFIG_VARIABLES, ...Object.keys(VARIABLES_READ_ELSEWHERE)];
  return [
    // Longest first, so `a-b-c` is reported as itself and not as `a-b`.
    ...ids.sort((a, b) => b.length - a.length).map((id) => [new RegExp(`(?<![\\w.-])${escape(id)}(?![\\w-]|\\.\\w)`), `id ${id}`] as [RegExp, string]),
    ...variables.map((v) => [new RegExp(`\\b${escape(v)}\\b`), `setting ${v}`] as [RegExp, string]),
    [/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/, 'snake_case name'],
    [/\b[a-z]{2,}[A-Z][a-z]+(?:[A-Z][a-z]*)*\b/, 'camelCase name'],
    [/\b\d{4}-\d\d-\d\dT\d\d:/, 'ISO timestamp'],
    [/\b[A-Z][A-Z0-9]+_[A-Z0-9_]+=?/, 'environment variable'],
  ];
}

/** The text a person reads on the page: every shown text node outside code and machine text, folded parts opened. */
async function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
    const skip = 'code, pre, kbd, samp, script, style, noscript, template, [data-machine-text]';
    const parts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(skip) || !n.textContent?.trim()) continue;
      // A select's options are read when the list opens, though the closed select does not show them.
      if (el.closest('option') || el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) parts.push(n.textContent.trim());
    }
    return parts.join('\n');
  });
}

/** Each line of the page's readable text that matches a pattern, as "what: the line". */
async function rawNames(page: Page, list: Array<[RegExp, string]>): Promise<string[]> {
  const text = await readableText(page);
  const found: string[] = [];
  for (const line of text.split('\n')) {
    for (const [re, what] of list) {
      const m = re.exec(line);
      if (m) {
        found.push(`${what}: …${line.slice(Math.max(0, m.index - 60), m.index + m[0].length + 60)}…`);
        break;
      }
    }
  }
  return found;
}

/** Walks the pages, collecting what each shows that it should not, keyed by page. */
class Walk {
  readonly offenders: Record<string, string[]> = {};
  constructor(private readonly page: Page, private readonly list: () => Array<[RegExp, string]>) {}
  async read(name: string) {
    await this.page.waitForLoadState('networkidle');
    const found = await rawNames(this.page, this.list());
    if (found.length) this.offenders[name] = found;
  }
}

/** The page as it is, whole, at 1280×800 and 390×844, then back to 1280 wide. */
async function shootBoth(page: Page, name: string) {
  await page.setViewportSize(SCREEN);
  await screenshot(page, name);
  await page.setViewportSize(PHONE);
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** The path of the report just run on /check, and its stored JSON. */
async function justRun(page: Page, key: string): Promise<{ path: string; body: unknown }> {
  const reportPath = (await page.getByRole('link', { name: 'permanent link to this report' }).getAttribute('href'))!;
  const res = await page.request.get(`${BASE()}/api${reportPath}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status()).toBe(200);
  return { path: reportPath, body: await res.json() };
}

test('the pages a buyer reads outside the reports name nothing by its machine name', async ({ page, consoleErrors }) => {
  test.setTimeout(240_000);
  const walk = new Walk(page, () => patterns());

  for (const p of ['/check', '/account', '/pricing']) {
    await page.goto(`${BASE()}${p}`);
    await walk.read(`${p}, signed out`);
  }
  await buy(page, 'bundle-25', /Buy 25 calls/);
  await walk.read('/purchase/success');
  await page.getByRole('button', { name: 'Sign in with this key and run a check' }).click();
  await expect(page).toHaveURL(`${BASE()}/check`);

  // Each check's form, signed in.
  for (const tab of ['AI Visibility', 'Payment Readiness', 'Payment endpoint']) {
    await page.getByRole('button', { name: tab }).click();
    await walk.read(`/check, the ${tab} tab`);
  }
  // The readiness form filled in: its statuses in words too.
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await walk.read('/check, the Payment Readiness tab filled with the example');

  // A check spent, so the account lists a report, a call spent and a grant.
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.getByTestId('report')).toBeVisible({ timeout: 60_000 });
  await page.goto(`${BASE()}/account`);
  await expect(page.getByTestId('usage')).toBeVisible();
  await walk.read('/account, signed in');
  await shootBoth(page, 'words-account');
  await page.getByRole('button', { name: 'Show subscription and billing' }).click();
  await expect(page.getByTestId('grants')).toHaveCount(2);
  await walk.read('/account, signed in, with the billing lookup open');

  // /docs/checks is walked with the reports: its rubrics are drawn by each check's own Rubric component.
  for (const p of DOCS_PAGES.filter((d) => d.path !== '/docs/checks')) {
    await page.goto(`${BASE()}${p.path}`);
    await walk.read(p.path);
  }
  await shootBoth(page, 'words-docs-self-hosting');
  await page.goto(`${BASE()}/docs/api`);
  const endpoint = await page.locator('main a[href^="/docs/api/"]:not([href*="/schemas"])').first().getAttribute('href');
  await page.goto(`${BASE()}${endpoint}`);
  await walk.read(`${endpoint}`);
  for (const p of ['/terms', '/privacy', '/refunds', '/contact', '/no-such-page']) {
    await page.goto(`${BASE()}${p}`);
    await walk.read(p);
  }
  expectRefusedRequestLogged(consoleErrors, 404);

  expect(walk.offenders).toEqual({});
});

test('every check, on /check after its run and on its stored page, the home page and the rubrics, name nothing by its machine name', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(300_000);
  const seen = new Set<string>();
  const walk = new Walk(page, () => patterns(seen));
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  const stored: Array<[string, string]> = [];

  await page.getByRole('button', { name: 'AI Visibility' }).click();
  await page.getByLabel('Page address').fill(SHOP());
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.getByTestId('top-fixes')).toBeVisible({ timeout: 60_000 });
  let run = await justRun(page, key);
  machineNames(run.body, seen);
  stored.push(['AI Visibility', run.path]);
  await walk.read('/check after an AI Visibility run');

  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  await page.getByRole('button', { name: 'Fill with an example' }).click();
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.getByTestId('report').getByTestId('readiness-plan')).toBeVisible({ timeout: 60_000 });
  run = await justRun(page, key);
  machineNames(run.body, seen);
  stored.push(['Payment Readiness', run.path]);
  await walk.read('/check after a Payment Readiness run');

  await page.getByRole('button', { name: 'Payment endpoint' }).click();
  await page.getByLabel('Paid endpoint address').fill(SHOP());
  await page.getByRole('button', { name: 'Run the check (1 call)' }).click();
  await expect(page.getByTestId('report').getByRole('heading', { name: 'Rubric items' })).toBeVisible({ timeout: 60_000 });
  run = await justRun(page, key);
  machineNames(run.body, seen);
  stored.push(['Payment endpoint', run.path]);
  await walk.read('/check after a Payment endpoint run');

  for (const [name, path] of stored) {
    await page.goto(`${BASE()}${path}`);
    await walk.read(`a stored ${name} report`);
  }
  await page.goto(`${BASE()}/`);
  await walk.read('/ (home)');
  await page.goto(`${BASE()}/docs/checks`);
  await walk.read('/docs/checks (the rubrics)');

  expect(walk.offenders).toEqual({});
});

test('the readiness form teaches each capability: what implemented means, a checkable example, the rubric', async ({ page, consoleErrors: _ }) => {
  test.setTimeout(120_000);
  const { key } = await buy(page, 'bundle-25', /Buy 25 calls/);
  await page.goto(`${BASE()}/check`);
  await signIn(page, key);
  await page.getByRole('button', { name: 'Payment Readiness' }).click();
  const fields = page.getByTestId('capability-field');
  await expect(fields).toHaveCount(CAPABILITY_KEYS.length);
  for (const [i, key] of CAPABILITY_KEYS.entries()) {
    const guide = CAPABILITY_GUIDE[key];
    const field = fields.nth(i);
    // The status box is described by what "implemented" means, the evidence box by the example.
    const status = page.locator(`#readiness-${key}-status`);
    const evidence = page.locator(`#readiness-${key}-evidence`);
    await expect(status).toHaveAccessibleDescription(`Implemented means: ${guide.implemented}`);
    await expect(evidence).toHaveAccessibleDescription(new RegExp(`^Checkable evidence \\(.+\\), for example: ${escape(guide.example)}$`));
    await expect(field.getByRole('link', { name: /in the rubric$/ })).toHaveAttribute('href', '/docs/checks#readiness-rubric');
    await expect(field.locator('legend')).not.toContainText('_');
  }
  // The statuses read as words.
  expect(await page.locator('#readiness-idempotency-status option').allTextContents()).toEqual(['Choose…', 'Implemented', 'Partial', 'Missing', 'Unknown']);

  // An error joins the help in the description, first.
  await page.getByRole('button', { name: 'Run the assessment (1 call)' }).click();
  await expect(page.locator('#readiness-idempotency-status')).toHaveAccessibleDescription(
    `Required: choose a status. Implemented means: ${CAPABILITY_GUIDE.idempotency.implemented}`,
  );
  await page.getByRole('button', { name: 'Clear' }).click();

  await shootBoth(page, 'words-readiness-form');
  // And the first screen of one capability's help, as a phone shows it.
  await page.setViewportSize(PHONE);
  await fields.nth(CAPABILITY_KEYS.indexOf('idempotency')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'words-readiness-capability-phone-screen.png') });
  await page.setViewportSize(DESKTOP);
  // The rubric the links name is there.
  await page.goto(`${BASE()}/docs/checks#readiness-rubric`);
  await expect(page.locator('#readiness-rubric')).toBeVisible();
});
