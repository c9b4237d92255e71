// Comparing, sharing and running again a stored report, through the route handlers on a real SQLite store:
// the owner rule (the same 404 for another key's report and an unknown id), the exact refusals, and a re-run
// that spends exactly one call with a fresh Idempotency-Key and never a second on a retry.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST as signIn } from '@/app/api/session/route';
import { GET as compareRoute } from '@/app/api/reports/[id]/compare/[otherId]/route';
import { DELETE as unshareRoute, POST as shareRoute } from '@/app/api/reports/[id]/share/route';
import { POST as rerunRoute } from '@/app/api/reports/[id]/rerun/route';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { GET as listRoute } from '@/app/api/reports/route';
import SharedReportPage from '@/app/r/[token]/page';
import { getReport, getSharedReport, reportIsShared } from '@/lib/reports';
import { sessionAccount } from '@/lib/session';
import { rotateCreditsKey } from '@/lib/billing/rotate';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST: readiness } = agentCheckRoute('readiness');
const { POST: visibility } = agentCheckRoute('ai-visibility');
const BASE = 'http://localhost:3000';
const PAGE = '<!doctype html><html lang="en"><head><title>Widgets</title></head><body><h1>Widgets</h1><p>words</p></body></html>';

let rt: TestRuntime;
let site: FixtureSite;
let a: { key: string; keyHash: string };
let b: { key: string; keyHash: string };

beforeEach(async () => {
  site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE } });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  rt = installTestRuntime();
  a = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  b = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
});
afterEach(async () => {
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await site.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const idFromLink = (res: Response) => /^<\/api\/reports\/(rep_[A-Za-z0-9_-]{32})>; rel="related"$/.exec(res.headers.get('link') ?? '')?.[1] ?? 'no-link';
let n = 0;
async function readinessReport(key: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await readiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(overrides), { ...bearer(key), 'idempotency-key': `actions-${++n}` }));
  expect(res.status).toBe(200);
  return idFromLink(res);
}
const compare = (id: string, otherId: string, headers: Record<string, string>) =>
  compareRoute(new Request(`${BASE}/api/reports/${id}/compare/${otherId}`, { headers }), { params: Promise.resolve({ id, otherId }) });
const share = (method: 'POST' | 'DELETE', id: string, headers: Record<string, string>) =>
  (method === 'POST' ? shareRoute : unshareRoute)(new Request(`${BASE}/api/reports/${id}/share`, { method, headers }), { params: Promise.resolve({ id }) });
const rerun = (id: string, headers: Record<string, string>) => rerunRoute(new Request(`${BASE}/api/reports/${id}/rerun`, { method: 'POST', headers }), { params: Promise.resolve({ id }) });

/** What `/r/<token>` answers: the page renders (200), or it calls Next's notFound() (404). Any other outcome is thrown on. */
async function sharePageStatus(token: string): Promise<number> {
  try {
    await SharedReportPage({ params: Promise.resolve({ token }) });
    return 200;
  } catch (error) {
    if ((error as { digest?: unknown }).digest === 'NEXT_HTTP_ERROR_FALLBACK;404') return 404;
    throw error;
  }
}

async function problem(res: Response): Promise<[number, string]> {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  return [res.status, ((await res.json()) as { type: string }).type.replace(PROBLEM_BASE, '')];
}

async function sessionCookie(key: string): Promise<string> {
  const res = await signIn(post(`${BASE}/api/session`, { key }));
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0];
}

describe('GET /api/reports/<id>/compare/<otherId>', () => {
  it('compares two runs of one workflow: the score change and each finding fixed, new or unchanged', async () => {
    const before = await readinessReport(a.key);
    const after = await readinessReport(a.key, { capabilities: { ...validReadinessBody().capabilities, user_authentication: { status: 'implemented', evidence: ['OAuth'] } } });
    const res = await compare(after, before, bearer(a.key));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { check: string; target: string; before: { id: string; score: number }; after: { id: string; score: number }; scoreChange: number; counts: Record<string, number>; findings: Array<{ id: string; status: string }> };
    expect([body.check, body.target, body.before.id, body.after.id]).toEqual(['readiness', 'Checkout agent', before, after]);
    // Implementing authentication with unverifiable evidence: its "missing" is fixed, an info finding about the evidence is new.
    expect([body.before.score, body.after.score, body.scoreChange]).toEqual([57, 65, 8]);
    expect(body.counts).toEqual({ fixed: 1, new: 1, unchanged: 7 });
    expect(body.findings.filter((f) => f.status !== 'unchanged').map((f) => [f.status, f.id])).toEqual([
      ['new', 'user_authentication.evidence-unverifiable'],
      ['fixed', 'user_authentication.missing'],
    ]);
  });

  it('answers 404 for another key\'s report or an unknown id, 400 for two checks or two targets, 401 with no key', async () => {
    const mine = await readinessReport(a.key);
    const mineToo = await readinessReport(a.key);
    const theirs = await readinessReport(b.key);
    const otherWorkflow = await readinessReport(a.key, { workflow: { name: 'Refund agent', intendedUsers: 'agents', targetEnvironment: 'production' } });
    const res = await visibility(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/' }, { ...bearer(a.key), 'idempotency-key': 'actions-visibility' }));
    expect(res.status).toBe(200);
    const otherCheck = idFromLink(res);
    expect(await problem(await compare(mine, theirs, bearer(a.key)))).toEqual([404, 'not-found']);
    expect(await problem(await compare(theirs, mine, bearer(a.key)))).toEqual([404, 'not-found']);
    expect(await problem(await compare(mine, mineToo, bearer(b.key)))).toEqual([404, 'not-found']);
    expect(await problem(await compare(mine, `rep_${'Z'.repeat(32)}`, bearer(a.key)))).toEqual([404, 'not-found']);
    expect(await problem(await compare(mine, 'not-an-id', bearer(a.key)))).toEqual([404, 'not-found']);
    expect(await problem(await compare(mine, otherCheck, bearer(a.key)))).toEqual([400, 'invalid-request']);
    expect(await problem(await compare(mine, otherWorkflow, bearer(a.key)))).toEqual([400, 'invalid-request']);
    expect(await problem(await compare(mine, mine, bearer(a.key)))).toEqual([400, 'invalid-request']);
    expect(await problem(await compare(mine, mineToo, {}))).toEqual([401, 'not-signed-in']);
    expect((await compare(mine, mineToo, bearer(a.key))).status).toBe(200);
  });
});

describe('POST and DELETE /api/reports/<id>/share', () => {
  it('makes a link only the owner can make or revoke; the link opens the report until revoked', async () => {
    const id = await readinessReport(a.key);
    expect(await problem(await share('POST', id, bearer(b.key)))).toEqual([404, 'not-found']);
    expect(await problem(await share('POST', id, { ...bearer(a.key), origin: 'https://evil.test' }))).toEqual([403, 'cross-origin-refused']);
    const res = await share('POST', id, bearer(a.key));
    expect(res.status).toBe(200);
    const { url, path } = (await res.json()) as { url: string; path: string };
    const token = /^\/r\/(shr_[A-Za-z0-9_-]{32})$/.exec(path)![1];
    expect(url).toBe(`http://localhost:3000${path}`);
    // Nothing of the report id in the token, nor the token in the store.
    expect(token).not.toContain(id.slice(4));
    const opened = (await getSharedReport(token, rt))!;
    expect(opened.id).toBe(id);
    const owned = (await getReport(a.keyHash, id, rt))!;
    const { creditsUsage: _c, idempotencyKey: _i, ...publicBody } = owned.body as Record<string, unknown>;
    expect(opened.body).toEqual(publicBody);
    expect(JSON.stringify(opened)).not.toContain(a.keyHash);
    expect(JSON.stringify(opened)).not.toContain((owned.body as { creditsUsage: string }).creditsUsage);

    expect(await problem(await share('DELETE', id, bearer(b.key)))).toEqual([404, 'not-found']);
    expect(await getSharedReport(token, rt)).not.toBeNull();
    const revoked = await share('DELETE', id, bearer(a.key));
    expect([revoked.status, await revoked.text()]).toEqual([204, '']);
    expect(await getSharedReport(token, rt)).toBeNull();
    expect((await share('DELETE', id, bearer(a.key))).status).toBe(204);
  });
});

describe('share links and the key that paid for the report', () => {
  /** `npm run keys -- revoke <key>`, run as the operator runs it, on this test's store. */
  async function revokeWithCli(key: string): Promise<string> {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', 'revoke', key], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, DATA_DIR: rt.config.DATA_DIR, CREDITS_KEY_SECRET: rt.config.CREDITS_KEY_SECRET, NODE_ENV: 'development', REDIS_URL: '', KV_REST_API_URL: '', KV_REST_API_TOKEN: '' },
    });
    return stdout.trim();
  }

  async function shareLink(id: string, headers: Record<string, string>): Promise<string> {
    const res = await share('POST', id, headers);
    expect(res.status).toBe(200);
    return /^\/r\/(shr_[A-Za-z0-9_-]{32})$/.exec(((await res.json()) as { path: string }).path)![1];
  }

  it('revoking the key ends its reports\' links, made before included: /r/<token> answers 404, as for a link that never was', async () => {
    const id = await readinessReport(a.key);
    const other = await readinessReport(a.key, { workflow: { name: 'Refund agent', intendedUsers: 'agents', targetEnvironment: 'production' } });
    const token = await shareLink(id, bearer(a.key));
    const otherToken = await shareLink(other, bearer(a.key));
    const bToken = await shareLink(await readinessReport(b.key), bearer(b.key));
    expect([await sharePageStatus(token), await sharePageStatus(otherToken), await sharePageStatus(bToken)]).toEqual([200, 200, 200]);

    expect(await revokeWithCli(a.key)).toBe(`Revoked pac_live_…${a.key.slice(-4)}.`);
    expect([await sharePageStatus(token), await sharePageStatus(otherToken)]).toEqual([404, 404]);
    expect([await getSharedReport(token, rt), await getSharedReport(otherToken, rt)]).toEqual([null, null]);
    expect(await sharePageStatus(`shr_${'A'.repeat(32)}`)).toBe(404);
    // Another key's link is its own.
    expect(await sharePageStatus(bToken)).toBe(200);
  });

  it('rotating the key keeps the links: the new key lists the report as shared and revokes the old link; it works until then', async () => {
    const id = await readinessReport(a.key);
    const token = await shareLink(id, bearer(a.key));
    const rotated = await rotateCreditsKey({ store: rt.store, secret: rt.config.CREDITS_KEY_SECRET }, a.keyHash, Date.now());
    expect(await sharePageStatus(token)).toBe(200);
    expect((await getSharedReport(token, rt))?.id).toBe(id);

    // The old key is refused; the new one lists the report, its page says it is shared, and it revokes the link.
    expect(await problem(await share('DELETE', id, bearer(a.key)))).toEqual([401, 'invalid-credits-key']);
    const listed = await listRoute(new Request(`${BASE}/api/reports`, { headers: bearer(rotated.key) }));
    expect(((await listed.json()) as { reports: Array<{ id: string }> }).reports.map((r) => r.id)).toEqual([id]);
    expect([(await getReport(rotated.keyHash, id, rt))?.id, await reportIsShared(id, rt)]).toEqual([id, true]);
    expect(await sharePageStatus(token)).toBe(200);
    const revoked = await share('DELETE', id, bearer(rotated.key));
    expect([revoked.status, await reportIsShared(id, rt), await sharePageStatus(token)]).toEqual([204, false, 404]);
  });
});

describe('POST /api/reports/<id>/rerun', () => {
  it('runs the same check with the stored input: one call spent, a new report, and a retry with the same key spends nothing', async () => {
    const first = await readinessReport(a.key, { workflow: { name: 'Rerun agent', intendedUsers: 'agents', targetEnvironment: 'production' } });
    const cookie = await sessionCookie(a.key);
    const left = (await balance(rt.store, a.keyHash)).callsLeft;
    const res = await rerun(first, { cookie, 'idempotency-key': 'rerun-0001' });
    expect(res.status).toBe(200);
    expect(res.headers.get('credits-remaining')).toBe(String(left - 1));
    const second = idFromLink(res);
    expect(second).not.toBe(first);
    const [was, is] = [(await getReport(a.keyHash, first, rt))!, (await getReport(a.keyHash, second, rt))!];
    expect(is.input).toEqual(was.input);
    expect([is.operation, is.target]).toEqual(['readiness', 'Rerun agent']);
    const retried = await rerun(first, { cookie, 'idempotency-key': 'rerun-0001' });
    expect([retried.status, idFromLink(retried)]).toEqual([200, second]);
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(left - 1);
  });

  it('refuses without a session (401), without an Idempotency-Key (400), for another key\'s report (404) and from another site (403), charging nothing', async () => {
    const mine = await readinessReport(a.key);
    const theirs = await readinessReport(b.key);
    const cookie = await sessionCookie(a.key);
    const left = (await balance(rt.store, a.keyHash)).callsLeft;
    expect(await problem(await rerun(mine, { 'idempotency-key': 'x-1' }))).toEqual([401, 'not-signed-in']);
    expect(await problem(await rerun(mine, bearer(a.key)))).toEqual([401, 'not-signed-in']);
    expect(await problem(await rerun(mine, { cookie }))).toEqual([400, 'invalid-idempotency-key']);
    expect(await problem(await rerun(theirs, { cookie, 'idempotency-key': 'x-2' }))).toEqual([404, 'not-found']);
    expect(await problem(await rerun(mine, { cookie, 'idempotency-key': 'x-3', origin: 'https://evil.test' }))).toEqual([403, 'cross-origin-refused']);
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(left);
  });
});

describe('the account page\'s grants and calls spent (sessionAccount)', () => {
  it('reads the session\'s key: after a rotation, the new key\'s grants, and the calls spent before it too, the same CSV as `keys usage`', async () => {
    await readinessReport(a.key);
    const rotated = await rotateCreditsKey({ store: rt.store, secret: rt.config.CREDITS_KEY_SECRET }, a.keyHash, Date.now());
    const after = await sessionAccount(rotated.keyHash, rt);
    expect(after.balance.grants.map((g) => [g.plan, g.calls, g.used, g.callsLeft])).toEqual([['bundle-25', 25, 1, 24]]);
    expect(after.usage.map((r) => [r[1], r[3]])).toEqual([['createAgentReadinessAssessment', 'no']]);
    expect(after.usageCsv.split('\n')).toEqual(['time,operation,usage,refunded,refunded_at', after.usage[0].join(',')]);
    // The old key holds no grant any more; another key sees none of these calls.
    expect((await sessionAccount(a.keyHash, rt)).balance.grants).toEqual([]);
    expect((await sessionAccount(b.keyHash, rt)).usage).toEqual([]);
  });
});
