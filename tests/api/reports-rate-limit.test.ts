// Reads of stored reports count against RATE_LIMIT_REPORTS_PER_IP per client address, before the key is looked up.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GET as listReports } from '@/app/api/reports/route';
import { GET as readReport } from '@/app/api/reports/[id]/route';
import { createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST: restReadiness } = agentCheckRoute('readiness');

const BASE = 'http://localhost:3000';
let rt: TestRuntime;
let key: string;

beforeEach(async () => {
  rt = installTestRuntime({ RATE_LIMIT_REPORTS_PER_IP: '3' });
  ({ key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
});
afterEach(() => rt.dispose());

const get = (path: string, headers: Record<string, string>) => new Request(`${BASE}${path}`, { method: 'GET', headers: { 'x-forwarded-for': '203.0.113.7', ...headers } });
const read = (id: string, headers: Record<string, string>) => readReport(get(`/api/reports/${id}`, headers), { params: Promise.resolve({ id }) });

describe('GET /api/reports and /api/reports/<id> per client address', () => {
  it('answers 429 problem+json with Retry-After past RATE_LIMIT_REPORTS_PER_IP, lists and reads in one bucket, another address apart', async () => {
    const paid = await restReadiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${key}` }));
    expect(paid.status).toBe(200);
    const link = paid.headers.get('link')!;
    const id = link.slice(link.indexOf('/api/reports/') + '/api/reports/'.length, link.indexOf('>'));
    const auth = { authorization: `Bearer ${key}` };

    expect((await listReports(get('/api/reports', auth))).status).toBe(200);
    expect((await read(id, auth)).status).toBe(200);
    // Counted before the key is looked up: a read without any key spends the address's window too.
    expect((await listReports(get('/api/reports', {}))).status).toBe(401);

    for (const limited of [await listReports(get('/api/reports', auth)), await read(id, auth), await read(id, {})]) {
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toBe('application/problem+json');
      expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(((await limited.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
    }
    expect((await read(id, { ...auth, 'x-forwarded-for': '198.51.100.9' })).status).toBe(200);
  });
});
