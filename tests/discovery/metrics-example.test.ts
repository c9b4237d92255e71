// The /api/metrics example in the docs shows a label a real series carries: paid calls are counted by
// operation id (lib/paid-call/observe.ts), so the example names one.
import { expect, it } from 'vitest';
import { endpoints } from '@/lib/endpoints';
import { checks } from '@/lib/checks/registry';

it('the metrics example labels paid calls with an operation id the registry has', () => {
  const metrics = endpoints().find((e) => e.path === '/api/metrics');
  expect(metrics?.kind).toBe('free');
  const text = String(metrics?.kind === 'free' ? metrics.examples('https://checks.example')[0]?.body : '');
  const label = /pac_paid_calls_total\{operation="([^"]+)"/.exec(text)?.[1];
  expect(checks().map((o) => o.operationId)).toContain(label);
});
