// Stored reports: every fulfilled call paid with a credits key keeps its 200 body for its key, said in the
// answer's headers (Credits-Remaining, Link) and readable at GET /api/reports/<id> by that key only.
// In-process route handlers on a real SQLite store; the clock is moved, never waited for.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET as listRoute } from '@/app/api/reports/route';
import { GET as reportRoute } from '@/app/api/reports/[id]/route';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { getReport, listReports } from '@/lib/reports';
import { rotateCreditsKey } from '@/lib/billing/rotate';
import { openSqliteStore } from '@/lib/store/sqlite';
import type { Store } from '@/lib/store';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { checkById } from '@/lib/checks/registry';

const { POST: readiness } = agentCheckRoute('readiness');
const { POST: visibility } = agentCheckRoute('ai-visibility');

const BASE = 'http://localhost:3000';
const T0 = new Date('2026-11-01T10:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const PAGE = '<!doctype html><html lang="en"><head><title>Widgets</title></head><body><h1>Widgets</h1><p>words</p></body></html>';

let rt: TestRuntime;
let site: FixtureSite;
let a: { key: string; keyHash: string };
let b: { key: string; keyHash: string };

async function setUp(env: Record<string, string> = {}) {
  rt = installTestRuntime(env);
  a = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  b = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE }, '/reset': { reset: true } });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  await setUp();
});
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await site.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const runReadiness = (key: string, idem: string, overrides: Record<string, unknown> = {}) =>
  readiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(overrides), { ...bearer(key), 'idempotency-key': idem }));
const getOne = (id: string, headers: Record<string, string> = {}) =>
  reportRoute(new Request(`${BASE}/api/reports/${id}`, { headers }), { params: Promise.resolve({ id }) });
const getList = (query: string, headers: Record<string, string> = {}) => listRoute(new Request(`${BASE}/api/reports${query}`, { headers }));
const idFromLink = (res: Response) => /^<\/api\/reports\/(rep_[A-Za-z0-9_-]{32})>; rel="related"$/.exec(res.headers.get('link') ?? '')?.[1] ?? 'no-link';

interface ListBody {
  reports: Array<{ id: string; operation: string; createdAt: string; creditsUsage: string; target: string; score: number | null }>;
  nextCursor: string | null;
}

async function problemType(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  return ((await res.json()) as { type: string }).type;
}

describe('a prepaid 200', () => {
  it('carries Credits-Remaining and a Link to its stored report, which returns the same body to the key that paid', async () => {
    const res = await runReadiness(a.key, 'report-0001');
    expect(res.status).toBe(200);
    expect(res.headers.get('credits-remaining')).toBe('24');
    const id = idFromLink(res);
    expect(id).toMatch(/^rep_/);
    const text = await res.text();

    const stored = await getOne(id, bearer(a.key));
    expect(stored.status).toBe(200);
    expect(stored.headers.get('cache-control')).toBe('no-store');
    expect(await stored.json()).toEqual(JSON.parse(text));

    const second = await runReadiness(a.key, 'report-0002');
    expect(second.headers.get('credits-remaining')).toBe('23');
    expect(idFromLink(second)).not.toBe(id);
  });

  it('replayed (same Idempotency-Key) links the same report and stores no second one', async () => {
    const first = await runReadiness(a.key, 'report-replay-1');
    const replay = await runReadiness(a.key, 'report-replay-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('link')).toBe(first.headers.get('link'));
    expect(replay.headers.get('credits-remaining')).toBe('24');
    const list = (await (await getList('', bearer(a.key))).json()) as ListBody;
    expect(list.reports.map((r) => r.id)).toEqual([idFromLink(first)]);
  });

  it('is the only kind that stores: a 422 (nothing charged) leaves no report and no headers', async () => {
    const failed = await visibility(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/reset' }, { ...bearer(a.key), 'idempotency-key': 'report-422-1' }));
    expect(failed.status).toBe(422);
    expect([failed.headers.get('link'), failed.headers.get('credits-remaining')]).toEqual([null, null]);
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(25);
    expect(((await (await getList('', bearer(a.key))).json()) as ListBody).reports).toEqual([]);
  });
});

describe('a report that cannot be kept', () => {
  // A prepaid call keeps its report in the same store step as its commit, so a store that fails there fails the
  // commit too (tests/store/paid-call-steps.test.ts). What can fail alone is making the report: here the check's
  // entry cannot read its own answer's facts (a history row needs them).
  it('leaves the paid answer whole: 200, charged once, no Link, the failure logged', async () => {
    const readiness = checkById('readiness')!;
    const facts = vi.spyOn(readiness, 'facts').mockImplementation(() => {
      throw new Error('facts unreadable');
    });
    try {
      const res = await runReadiness(a.key, 'report-fail-1');
      expect(res.status).toBe(200);
      expect([res.headers.get('link'), res.headers.get('credits-remaining')]).toEqual([null, '24']);
      expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(24);
      expect(rt.logs.filter((e) => e.event === 'report-store-failed')).toHaveLength(1);
      // The replay answers the same, without a report to link.
      const replay = await runReadiness(a.key, 'report-fail-1');
      expect([replay.headers.get('idempotent-replayed'), replay.headers.get('link')]).toEqual(['true', null]);
      expect(((await (await getList('', bearer(a.key))).json()) as ListBody).reports).toEqual([]);
    } finally {
      facts.mockRestore();
    }
  });
});

describe('a key rotated while a check runs', () => {
  it('keeps the report with the new key: listed and readable with it, not readable with the old', async () => {
    await rt.dispose();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-rotate-in-flight-'));
    const real = openSqliteStore(dir);
    let rotated: { key: string; keyHash: string } | null = null;
    // The rotation lands once the call is held and before the check's work runs: a rotation from another tab,
    // the CLI or an operator while the check is in flight.
    const reserveCall: Store['reserveCall'] = async (...args) => {
      const held = await real.reserveCall(...args);
      if (rotated === null) rotated = await rotateCreditsKey({ store: real, secret: rt.config.CREDITS_KEY_SECRET }, a.keyHash, Date.now());
      return held;
    };
    rt = installTestRuntime({}, { store: { ...real, kind: real.kind, reserveCall } });
    a = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');

    const res = await runReadiness(a.key, 'rotate-in-flight-1');
    expect(res.status).toBe(200);
    const now = rotated as { key: string; keyHash: string } | null;
    expect(now).not.toBeNull();
    const successor = now!;
    // The call was charged to the key holding the grant now.
    expect(res.headers.get('credits-remaining')).toBe('24');
    expect((await balance(rt.store, successor.keyHash)).callsLeft).toBe(24);
    const id = idFromLink(res);
    const body = (await res.json()) as unknown;

    const listed = (await (await getList('', bearer(successor.key))).json()) as ListBody;
    expect(listed.reports.map((r) => r.id)).toEqual([id]);
    const viaNew = await getOne(id, bearer(successor.key));
    expect(viaNew.status).toBe(200);
    expect(await viaNew.json()).toEqual(body);
    expect((await rt.store.getReport(id, Date.now()))?.keyHash).toBe(successor.keyHash);
    // The old key is revoked, and nothing is left under its hash.
    expect((await getOne(id, bearer(a.key))).status).toBe(401);
    expect(await getReport(a.keyHash, id, rt)).toBeNull();
    expect(await rt.store.listReports(a.keyHash, Date.now(), { limit: 10 })).toEqual([]);
  });
});

describe('GET /api/reports/<id>', () => {
  it('answers 404 to any other key, 401 without a key, and 404 for an id that never was', async () => {
    const id = idFromLink(await runReadiness(a.key, 'report-owner-1'));
    const other = await getOne(id, bearer(b.key));
    expect(other.status).toBe(404);
    expect(await problemType(other)).toBe(`${PROBLEM_BASE}not-found`);

    const none = await getOne(id);
    expect(none.status).toBe(401);
    expect(await problemType(none)).toBe(`${PROBLEM_BASE}not-signed-in`);

    const badKey = await getOne(id, bearer(`pac_live_${'C'.repeat(40)}`));
    expect(badKey.status).toBe(401);
    expect(await problemType(badKey)).toBe(`${PROBLEM_BASE}invalid-credits-key`);

    // An unknown id and another key's id look the same: nothing tells a guesser which ids exist.
    const unknown = await getOne(`rep_${'x'.repeat(32)}`, bearer(a.key));
    expect([unknown.status, await unknown.json()]).toEqual([other.status, await (await getOne(id, bearer(b.key))).json()]);
    expect((await getOne('../../etc/passwd', bearer(a.key))).status).toBe(404);
  });

  it('expires after REPORT_RETENTION_DAYS on the clock, from the list and the permalink alike', async () => {
    const id = idFromLink(await runReadiness(a.key, 'report-expiry-1'));
    vi.setSystemTime(T0.getTime() + 30 * DAY - 1);
    expect((await getOne(id, bearer(a.key))).status).toBe(200);
    expect(((await (await getList('', bearer(a.key))).json()) as ListBody).reports).toHaveLength(1);
    vi.setSystemTime(T0.getTime() + 30 * DAY);
    expect((await getOne(id, bearer(a.key))).status).toBe(404);
    expect(((await (await getList('', bearer(a.key))).json()) as ListBody).reports).toEqual([]);
  });

  it('keeps reports as long as REPORT_RETENTION_DAYS says', async () => {
    await rt.dispose();
    await setUp({ REPORT_RETENTION_DAYS: '2' });
    const id = idFromLink(await runReadiness(a.key, 'report-short-1'));
    vi.setSystemTime(T0.getTime() + 2 * DAY - 1);
    expect((await getOne(id, bearer(a.key))).status).toBe(200);
    vi.setSystemTime(T0.getTime() + 2 * DAY);
    expect((await getOne(id, bearer(a.key))).status).toBe(404);
  });
});

describe('GET /api/reports', () => {
  it("lists the key's reports newest first, a page at a time, with what was checked and its score", async () => {
    const first = await runReadiness(a.key, 'report-list-1');
    const firstBody = (await first.json()) as { creditsUsage: string; assessment: { score: number; verdict: string } };
    vi.setSystemTime(T0.getTime() + 1000);
    const second = await visibility(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/' }, { ...bearer(a.key), 'idempotency-key': 'report-list-2' }));
    const secondBody = (await second.json()) as { creditsUsage: string; report: { score: number } };
    vi.setSystemTime(T0.getTime() + 2000);
    const third = await runReadiness(a.key, 'report-list-3', { workflow: { name: 'Refund agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } });
    await runReadiness(b.key, 'report-list-b');

    const all = (await (await getList('', bearer(a.key))).json()) as ListBody;
    expect(all.nextCursor).toBeNull();
    expect(all.reports.map((r) => r.id)).toEqual([idFromLink(third), idFromLink(second), idFromLink(first)]);
    expect(all.reports[1]).toEqual({
      id: idFromLink(second), check: 'ai-visibility', createdAt: new Date(T0.getTime() + 1000).toISOString(),
      creditsUsage: secondBody.creditsUsage, target: 'https://site.test/', score: secondBody.report.score, verdict: 'fair',
    });
    expect(all.reports[2]).toEqual({
      id: idFromLink(first), check: 'readiness', createdAt: T0.toISOString(), creditsUsage: firstBody.creditsUsage, target: 'Checkout agent', score: firstBody.assessment.score,
      verdict: firstBody.assessment.verdict,
    });
    expect(all.reports[0].target).toBe('Refund agent');

    const page1 = (await (await getList('?limit=2', bearer(a.key))).json()) as ListBody;
    expect(page1.reports.map((r) => r.id)).toEqual(all.reports.slice(0, 2).map((r) => r.id));
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = (await (await getList(`?limit=2&cursor=${encodeURIComponent(page1.nextCursor!)}`, bearer(a.key))).json()) as ListBody;
    expect(page2).toEqual({ reports: [all.reports[2]], nextCursor: null });

    // The lib functions the site's pages call give the same answers.
    expect(await listReports(a.keyHash, { limit: 2 }, rt)).toEqual(page1);
    expect((await getReport(a.keyHash, idFromLink(first), rt))?.body).toEqual(firstBody);
    expect(await getReport(b.keyHash, idFromLink(first), rt)).toBeNull();

    const listB = (await (await getList('', bearer(b.key))).json()) as ListBody;
    expect(listB.reports).toHaveLength(1);
  });

  it('answers 401 without a key and 400 for a bad limit or cursor', async () => {
    const none = await getList('');
    expect(none.status).toBe(401);
    expect(await problemType(none)).toBe(`${PROBLEM_BASE}not-signed-in`);
    for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?cursor=not-a-cursor']) {
      const res = await getList(query, bearer(a.key));
      expect(res.status, query).toBe(400);
      expect(await problemType(res)).toBe(`${PROBLEM_BASE}invalid-request`);
    }
  });
});
