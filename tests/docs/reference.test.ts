import { describe, expect, it } from 'vitest';
import { endpointDocs, problemTable } from '@/lib/docs/reference';
import { checks } from '@/lib/checks/registry';
import { PROBLEMS } from '@/lib/problems';

// The docs page renders these; if the registry or the problem table grows, the docs grow with it.

describe('generated API reference', () => {
  it('documents every paid operation (POST and its free GET) and every billing route', async () => {
    const docs = await endpointDocs('https://checks.example');
    const routes = docs.map((d) => `${d.method} ${d.path.split('?')[0]}`);
    for (const op of checks()) {
      expect(routes).toContain(`POST ${op.path}`);
      expect(routes).toContain(`GET ${op.path}`);
    }
    for (const r of ['GET /api/agent/credits', 'POST /api/mcp', 'POST /api/billing/checkout', 'GET /api/billing/session', 'POST /api/billing/account', 'POST /api/billing/portal', 'POST /api/billing/webhook']) {
      expect(routes).toContain(r);
    }
    expect(new Set(docs.map((d) => d.anchor)).size).toBe(docs.length);
  });

  it('shows each paid operation a request its own schema accepts, and a real result where the check is deterministic', async () => {
    const docs = await endpointDocs('https://checks.example');
    for (const op of checks()) {
      const doc = docs.find((d) => d.method === 'POST' && d.path === op.path)!;
      expect(op.input.safeParse(doc.requestBody).success).toBe(true);
      if (!op.workBeforeCharge) expect(op.output.safeParse(doc.responses[0].body).success).toBe(true);
    }
  });

  it('lists every problem type, and names only known ones per endpoint', async () => {
    expect(problemTable().map((p) => p.kind).sort()).toEqual(Object.keys(PROBLEMS).sort());
    for (const doc of await endpointDocs('https://checks.example')) {
      for (const kind of doc.errors) expect(Object.keys(PROBLEMS)).toContain(kind);
    }
  });
});
