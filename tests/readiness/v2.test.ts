import { describe, expect, it } from 'vitest';
import { assessReadiness, type Assessment } from '@/lib/checks/readiness/assess';
import { CAPABILITY_KEYS, CAPABILITY_STATUSES, ReadinessAssessmentSchema, ReadinessRequest, type CapabilityKey } from '@/lib/checks/readiness/schema';
import { HAZARD_RULES } from '@/lib/checks/readiness/hazards';
import { DEPENDENCIES, PHASES } from '@/lib/checks/readiness/plan';
import { REFERENCES } from '@/lib/checks/readiness/references';
import { CAPABILITY_TEXTS, isVerifyCommand } from '@/lib/checks/readiness/content';
import { endpointCheck } from '@/lib/checks/payment-endpoint/entry';
import { ASSESSMENT_VERSION, READINESS_RUBRIC_VERSION, readinessRubric } from '@/lib/checks/readiness/rubric';
import { readinessMarkdown } from '@/lib/checks/readiness/markdown';
import { reportMarkdown } from '@/lib/reports/markdown';
import { openApiDocument } from '@/lib/discovery/openapi';
import { BASE_USDC_ADDRESS } from '@/lib/config';

type Status = 'implemented' | 'partial' | 'missing' | 'unknown';
type Users = 'humans' | 'agents' | 'both';
type Env = 'sandbox' | 'production';

/** Every capability implemented with a checkable test name unless given. */
function request(users: Users, env: Env, statuses: Partial<Record<CapabilityKey, Status | [Status, string[]]>> = {}): ReadinessRequest {
  const capabilities = Object.fromEntries(
    CAPABILITY_KEYS.map((k) => {
      const s = statuses[k] ?? ['implemented', [`tests/${k}.test.ts`]];
      return [k, Array.isArray(s) ? { status: s[0], evidence: s[1] } : { status: s }];
    }),
  );
  return ReadinessRequest.parse({ workflow: { name: 'wf', intendedUsers: users, targetEnvironment: env }, capabilities });
}

const hazardIds = (a: Assessment) => a.hazards.map((h) => h.id);
const allSteps = (a: Assessment) => a.plan.flatMap((p) => p.steps.map((s) => ({ ...s, phase: p.phase })));

describe('version 2', () => {
  it('is assessment 2.0.0 under a new rubric version, and keeps every 1.x member', () => {
    const a = assessReadiness(request('agents', 'production', { idempotency: 'partial' }));
    expect(a.assessmentVersion).toBe('2.0.0');
    expect(ASSESSMENT_VERSION).toBe('2.0.0');
    expect(a.rubricVersion).toBe(READINESS_RUBRIC_VERSION);
    expect(READINESS_RUBRIC_VERSION).not.toBe('readiness-rubric-2026-11.1');
    for (const k of ['assessmentVersion', 'rubricVersion', 'workflow', 'verdict', 'score', 'scoreMax', 'capabilities', 'blockers', 'findings', 'authorizesExecution', 'statement']) {
      expect(a).toHaveProperty(k);
    }
    expect(Object.keys(a.capabilities[0])).toEqual(['key', 'status', 'requirement', 'pointsPossible', 'pointsEarned', 'evidenceCount', 'evidence', 'finding']);
    expect(Object.keys(a.findings[0])).toEqual(['id', 'capability', 'severity', 'why', 'fix', 'risk', 'steps', 'verify', 'references', 'effort']);
  });
});

describe('evidence credit', () => {
  it('statements only earn 0.85 and get <capability>.evidence-unverifiable; one checkable item keeps full credit', () => {
    const statements = assessReadiness(request('agents', 'sandbox', { idempotency: ['implemented', ['we dedupe retries', 'works fine']] }));
    const mixed = assessReadiness(request('agents', 'sandbox', { idempotency: ['implemented', ['we dedupe retries', 'tests/idem.test.ts']] }));
    const s = statements.capabilities.find((c) => c.key === 'idempotency')!;
    const m = mixed.capabilities.find((c) => c.key === 'idempotency')!;
    expect(s.pointsPossible).toBe(24);
    expect(s.pointsEarned).toBe(Math.floor(24 * 0.85));
    expect(s.evidence).toEqual([
      { text: 'we dedupe retries', kind: 'statement', checkable: false },
      { text: 'works fine', kind: 'statement', checkable: false },
    ]);
    expect(s.finding).toMatchObject({ id: 'idempotency.evidence-unverifiable', severity: 'low', effort: 'small' });
    expect(statements.verdict).toBe('ready-with-gaps');
    expect(m.pointsEarned).toBe(24);
    expect(m.finding).toBeNull();
    expect(mixed.verdict).toBe('ready');
  });

  it('a recommended capability with statements only is an info finding and leaves the verdict ready', () => {
    const a = assessReadiness(request('agents', 'sandbox', { wallet_ownership: ['implemented', ['bound at signup']] }));
    expect(a.findings.map((f) => [f.id, f.severity])).toEqual([['wallet_ownership.evidence-unverifiable', 'info']]);
    expect(a.verdict).toBe('ready');
  });
});

describe('findings a buyer can act on', () => {
  it('every finding of every kind has a specific risk, 2 to 6 steps, a verify, primary references and an effort', () => {
    for (const status of ['missing', 'unknown', 'partial', 'implemented'] as const) {
      for (const users of ['agents', 'humans', 'both'] as const) {
        for (const env of ['sandbox', 'production'] as const) {
          const evidence = status === 'implemented' ? ['all good'] : undefined;
          const statuses = Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, evidence ? [status, evidence] : status])) as Record<CapabilityKey, [Status, string[]] | Status>;
          const a = assessReadiness(request(users, env, statuses));
          expect(a.findings).toHaveLength(10);
          for (const f of a.findings) {
            expect(f.steps.length, f.id).toBeGreaterThanOrEqual(2);
            expect(f.steps.length, f.id).toBeLessThanOrEqual(6);
            expect(f.verify.length, f.id).toBeGreaterThanOrEqual(1);
            for (const v of f.verify) expect(v.how.length * v.expect.length, f.id).toBeGreaterThan(0);
            expect(f.references.length, f.id).toBeGreaterThanOrEqual(1);
            for (const r of f.references) expect(Object.values(REFERENCES)).toContainEqual(r);
            expect(['small', 'medium', 'large']).toContain(f.effort);
            expect(f.risk, f.id).not.toBe(f.why);
            expect(f.risk.length, f.id).toBeGreaterThan(60);
          }
        }
      }
    }
  });

  it('says what goes wrong for the workflow\'s audience and environment', () => {
    const agents = assessReadiness(request('agents', 'production', { idempotency: 'missing' })).findings[0];
    const humans = assessReadiness(request('humans', 'production', { idempotency: 'missing' })).findings[0];
    expect(agents.risk).toMatch(/^Agents retry on timeouts/);
    expect(agents.risk).toMatch(/second charge/);
    expect(humans.risk).toMatch(/^A double-click/);
    const sandbox = assessReadiness(request('agents', 'sandbox', { webhook_verification: 'missing' })).findings[0];
    expect(sandbox.risk).toMatch(/in production this capability is required\.$/);
    const production = assessReadiness(request('agents', 'production', { webhook_verification: 'missing' })).findings[0];
    expect(production.risk).not.toMatch(/sandbox/);
  });

  it('sizes effort: the capability\'s effort when missing, one size less when partial, small for evidence', () => {
    const effort = (s: Status | [Status, string[]]) => assessReadiness(request('agents', 'production', { durable_fulfillment: s })).findings[0].effort;
    expect([effort('missing'), effort('unknown'), effort('partial'), effort('implemented'), effort(['implemented', ['yes']])]).toEqual(['large', 'large', 'medium', 'small', 'small']);
    expect(CAPABILITY_TEXTS.durable_fulfillment.effort).toBe('large');
  });

  it('names the mechanism for idempotency: key format, scope, replay, refusal of another body, expiry', () => {
    const steps = assessReadiness(request('agents', 'production', { idempotency: 'missing' })).findings[0].steps.join(' ');
    for (const word of [/Idempotency-Key/, /format/, /caller/, /stored answer/, /422/, /409/, /[Ee]xpire/]) expect(steps).toMatch(word);
  });
});

describe('references', () => {
  it('lists each primary source once, by https address, and every one is cited', () => {
    const urls = Object.values(REFERENCES).map((r) => r.url);
    expect(new Set(urls).size).toBe(urls.length);
    for (const u of urls) expect(u).toMatch(/^https:\/\/[^\s]+$/);
    const cited = new Set(Object.values(CAPABILITY_TEXTS).flatMap((t) => [...t.references]));
    expect([...cited].sort()).toEqual(Object.keys(REFERENCES).sort());
  });
});

describe('hazards', () => {
  // Each rule: a declaration that sets it off and the nearest one that does not.
  const CASES: Array<{ id: string; fires: ReadinessRequest; quiet: ReadinessRequest[] }> = [
    {
      id: 'retry-pays-twice',
      fires: request('agents', 'sandbox', { idempotency: 'partial' }),
      quiet: [request('agents', 'sandbox', { idempotency: 'partial', payment_challenge_and_receipt: 'missing' }), request('humans', 'sandbox', { idempotency: 'partial' })],
    },
    {
      id: 'forged-event-fulfils',
      fires: request('both', 'production', { webhook_verification: 'unknown' }),
      quiet: [request('both', 'production', { webhook_verification: 'unknown', durable_fulfillment: 'missing' })],
    },
    {
      id: 'paid-order-lost',
      fires: request('agents', 'production', { durable_fulfillment: 'partial', recovery_and_reconciliation: 'missing' }),
      quiet: [
        request('agents', 'production', { durable_fulfillment: 'partial' }),
        request('agents', 'production', { durable_fulfillment: 'partial', recovery_and_reconciliation: 'missing', payment_challenge_and_receipt: 'missing', webhook_verification: 'missing' }),
      ],
    },
    {
      id: 'disputes-unanswerable',
      fires: request('humans', 'production', { delivery_evidence: 'missing', recovery_and_reconciliation: 'partial' }),
      quiet: [request('humans', 'production', { delivery_evidence: 'missing' })],
    },
    {
      id: 'anyone-can-spend',
      fires: request('humans', 'sandbox', { user_authentication: 'partial', wallet_ownership: 'unknown' }),
      quiet: [request('agents', 'sandbox', { user_authentication: 'partial', wallet_ownership: 'unknown' }), request('humans', 'sandbox', { wallet_ownership: 'unknown' })],
    },
    {
      id: 'advertised-but-unpayable',
      fires: request('agents', 'sandbox', { payment_challenge_and_receipt: 'unknown' }),
      quiet: [request('agents', 'sandbox', { payment_challenge_and_receipt: 'partial' }), request('agents', 'sandbox', { payment_challenge_and_receipt: 'missing', machine_discovery: 'missing' })],
    },
    {
      id: 'refund-to-nobody',
      fires: request('agents', 'production', { wallet_ownership: 'missing', recovery_and_reconciliation: 'missing' }),
      quiet: [request('agents', 'production', { wallet_ownership: 'missing' })],
    },
    {
      id: 'no-proof-either-side',
      fires: request('agents', 'production', { payment_challenge_and_receipt: 'partial', delivery_evidence: 'missing' }),
      quiet: [request('agents', 'production', { payment_challenge_and_receipt: 'missing', delivery_evidence: 'missing' }), request('agents', 'production', { payment_challenge_and_receipt: 'partial' })],
    },
  ];

  it('has at least 8 published rules, each with a case here', () => {
    expect(HAZARD_RULES.length).toBeGreaterThanOrEqual(8);
    expect(CASES.map((c) => c.id)).toEqual(HAZARD_RULES.map((r) => r.id));
  });

  for (const c of CASES) {
    it(`${c.id} fires on its combination and not on the nearest declarations without it`, () => {
      const a = assessReadiness(c.fires);
      expect(hazardIds(a)).toContain(c.id);
      const h = a.hazards.find((x) => x.id === c.id)!;
      const rule = HAZARD_RULES.find((r) => r.id === c.id)!;
      expect(h.capabilities).toEqual(rule.capabilities);
      expect([h.why, h.fix]).toEqual([rule.why, rule.fix]);
      for (const q of c.quiet) expect(hazardIds(assessReadiness(q))).not.toContain(c.id);
    });
  }

  it('nothing fires when everything is implemented', () => {
    for (const users of ['agents', 'humans', 'both'] as const) for (const env of ['sandbox', 'production'] as const) expect(assessReadiness(request(users, env)).hazards).toEqual([]);
  });

  it('is one severity lower when the workflow requires none of its capabilities', () => {
    const sandbox = assessReadiness(request('agents', 'sandbox', { webhook_verification: 'missing' }));
    const production = assessReadiness(request('agents', 'production', { webhook_verification: 'missing' }));
    expect(sandbox.hazards.map((h) => [h.id, h.severity])).toEqual([['forged-event-fulfils', 'high']]);
    expect(production.hazards.map((h) => [h.id, h.severity])).toEqual([['forged-event-fulfils', 'critical']]);
  });

  it('never adds a blocker or makes the verdict not-ready', () => {
    // Agents in a sandbox: only discovery, challenge and idempotency can block; these hazards name others.
    const a = assessReadiness(request('agents', 'sandbox', { webhook_verification: 'missing', wallet_ownership: 'missing', recovery_and_reconciliation: 'missing' }));
    expect(hazardIds(a)).toEqual(['forged-event-fulfils', 'refund-to-nobody']);
    expect(a.blockers).toEqual([]);
    expect(a.verdict).toBe('ready-with-gaps');
  });
});

describe('the plan', () => {
  it('is empty with no findings, and so are the hazards', () => {
    const a = assessReadiness(request('both', 'production'));
    expect([a.plan, a.hazards, a.findings]).toEqual([[], [], []]);
    expect(a.summary).toBe('Ready (score 100/100): no blockers; nothing to fix.');
  });

  it('lists every finding exactly once, blockers in the first phase, phases in order', () => {
    const a = assessReadiness(
      request('both', 'production', {
        machine_discovery: 'partial', payment_challenge_and_receipt: 'missing', idempotency: 'unknown', durable_fulfillment: 'missing',
        delivery_evidence: 'partial', recovery_and_reconciliation: 'missing', wallet_ownership: 'missing', onramp_provider_handoff: ['implemented', ['yes']],
      }),
    );
    const steps = allSteps(a);
    expect(steps.map((s) => s.findingId).sort()).toEqual(a.findings.map((f) => f.id).sort());
    expect(a.plan[0].phase).toBe('before-first-payment');
    for (const b of a.blockers) expect(a.plan[0].steps.map((s) => s.capability)).toContain(b);
    expect(a.plan.map((p) => p.phase)).toEqual(PHASES.filter((p) => a.plan.some((x) => x.phase === p)));
    // Within the first phase: the challenge and durable fulfilment before idempotency, durable fulfilment before reconciliation.
    expect(a.plan.map((p) => [p.phase, p.steps.map((s) => s.findingId)])).toEqual([
      ['before-first-payment', ['payment_challenge_and_receipt.missing', 'durable_fulfillment.missing', 'idempotency.unknown', 'recovery_and_reconciliation.missing']],
      // The missing wallet binding is raised to medium by refund-to-nobody, so it is fixed before production.
      ['before-production', ['machine_discovery.partial', 'delivery_evidence.partial', 'wallet_ownership.missing']],
      ['after-launch', ['onramp_provider_handoff.evidence-unverifiable']],
    ]);
    expect(a.summary).toBe(
      'Not ready (score 30/100): 4 blockers (Payment challenge and receipt, Idempotency, Durable fulfilment, Recovery and reconciliation) ' +
        'and 1 critical hazard (Durable fulfilment with Recovery and reconciliation); ' +
        'first step (Payment challenge and receipt): answer unpaid calls with 402 and a fresh, single-use MPP or x402 challenge, and paid ones with a receipt.',
    );
  });

  it('orders by dependency before severity: durable fulfilment (high) comes before reconciliation (critical) in one phase', () => {
    const a = assessReadiness(request('agents', 'production', { durable_fulfillment: 'partial', recovery_and_reconciliation: 'missing' }));
    // paid-order-lost (critical) raises the partial durable fulfilment into the first phase.
    expect(a.plan.map((p) => [p.phase, p.steps.map((s) => s.capability)])).toEqual([['before-first-payment', ['durable_fulfillment', 'recovery_and_reconciliation']]]);
  });

  it('never raises a finding that only asks for evidence, and puts production-only gaps of a sandbox before production', () => {
    const a = assessReadiness(request('agents', 'sandbox', { payment_challenge_and_receipt: ['implemented', ['402 works']], idempotency: 'partial', recovery_and_reconciliation: 'missing' }));
    expect(a.plan.map((p) => [p.phase, p.steps.map((s) => s.findingId)])).toEqual([
      ['before-first-payment', ['idempotency.partial']],
      ['before-production', ['recovery_and_reconciliation.missing']],
      ['after-launch', ['payment_challenge_and_receipt.evidence-unverifiable']],
    ]);
    expect(allSteps(a).find((s) => s.capability === 'payment_challenge_and_receipt')!.action).toMatch(/^Name checkable evidence for payment challenge and receipt/);
  });

  it('the dependency graph is acyclic', () => {
    const left = new Set(CAPABILITY_KEYS as readonly string[]);
    let progress = true;
    while (progress) {
      progress = false;
      for (const k of [...left]) {
        if (!DEPENDENCIES.some((d) => d.after === k && left.has(d.before))) {
          left.delete(k);
          progress = true;
        }
      }
    }
    expect([...left]).toEqual([]);
  });
});

describe('the production delta', () => {
  it('says what the same sandbox declaration gets in production', () => {
    const r = request('agents', 'sandbox', { webhook_verification: 'missing', recovery_and_reconciliation: 'unknown', delivery_evidence: 'partial' });
    const a = assessReadiness(r);
    const p = assessReadiness(ReadinessRequest.parse({ ...r, workflow: { ...r.workflow, targetEnvironment: 'production' } }));
    expect(a.verdict).toBe('ready-with-gaps');
    expect(a.productionDelta).toEqual({
      score: p.score,
      verdict: 'not-ready',
      newlyRequired: ['webhook_verification', 'durable_fulfillment', 'delivery_evidence', 'recovery_and_reconciliation'],
      blockers: ['webhook_verification', 'recovery_and_reconciliation'],
    });
    expect(p.productionDelta).toBeUndefined();
    expect(p.verdict).toBe('not-ready');
  });

  it('requires nothing new for a workflow already complete', () => {
    expect(assessReadiness(request('humans', 'sandbox')).productionDelta).toEqual({
      score: 100, verdict: 'ready', newlyRequired: ['webhook_verification', 'durable_fulfillment', 'delivery_evidence', 'recovery_and_reconciliation'], blockers: [],
    });
  });
});

describe('determinism', () => {
  it('every status combination of the agent capabilities, for three workflows, gives the same bytes twice', () => {
    const keys: CapabilityKey[] = ['payment_challenge_and_receipt', 'idempotency', 'durable_fulfillment', 'recovery_and_reconciliation'];
    const workflows: Array<[Users, Env]> = [['agents', 'production'], ['both', 'sandbox'], ['humans', 'production']];
    let n = 0;
    for (const [users, env] of workflows) {
      for (let i = 0; i < 4 ** keys.length; i++) {
        const statuses = Object.fromEntries(keys.map((k, j) => [k, CAPABILITY_STATUSES[Math.floor(i / 4 ** j) % 4]])) as Partial<Record<CapabilityKey, Status>>;
        const r = request(users, env, statuses);
        const first = JSON.stringify(assessReadiness(r));
        const second = JSON.stringify(assessReadiness(ReadinessRequest.parse(JSON.parse(JSON.stringify(r)))));
        expect(second).toBe(first);
        expect(ReadinessAssessmentSchema.safeParse(JSON.parse(first)).success).toBe(true);
        n++;
      }
    }
    expect(n).toBe(768);
  });
});

describe('the published rubric', () => {
  it('publishes the evidence rules, credit, effort scale, hazard table, dependency graph, phases and the changes from 1.x', () => {
    const r = readinessRubric();
    expect(r.rubricVersion).toBe(READINESS_RUBRIC_VERSION);
    expect(r.points.credit['implemented, statements only']).toBe(0.85);
    expect(r.evidence.rules.map((x) => x.kind)).toEqual(['command', 'url', 'test', 'path', 'reference']);
    expect(Object.keys(r.findings.effort.scale)).toEqual(['small', 'medium', 'large']);
    expect(r.hazards.table.map((h) => h.id)).toEqual(HAZARD_RULES.map((h) => h.id));
    expect(r.plan.dependencies).toHaveLength(DEPENDENCIES.length);
    expect(r.plan.phases.map((p) => p.phase)).toEqual([...PHASES]);
    expect(r.changes.from).toEqual({ assessmentVersion: '1.0.0', rubricVersion: 'readiness-rubric-2026-11.1' });
    expect(r.changes.to).toEqual({ assessmentVersion: '2.0.0', rubricVersion: READINESS_RUBRIC_VERSION });
    expect(r.references).toHaveLength(Object.keys(REFERENCES).length);
  });
});

describe('the OpenAPI document', () => {
  it('describes the new members of the readiness answer', () => {
    const doc = openApiDocument({ appUrl: 'https://checks.example', rails: ['stripe', 'evm', 'x402'], usdcAddress: BASE_USDC_ADDRESS, contactEmail: 'support@checks.example' }) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>>;
    };
    const schema = doc.paths['/api/agent/readiness'].post.responses['200'].content['application/json'].schema as {
      properties: { assessment: { properties: Record<string, { type?: string; items?: { properties?: Record<string, unknown> }; properties?: Record<string, unknown> }>; required: string[] } };
    };
    const a = schema.properties.assessment;
    for (const k of ['summary', 'hazards', 'plan', 'productionDelta']) expect(Object.keys(a.properties)).toContain(k);
    expect(a.required).toEqual(expect.arrayContaining(['summary', 'hazards', 'plan']));
    expect(a.required).not.toContain('productionDelta');
    expect(Object.keys(a.properties.findings.items!.properties!)).toEqual(
      expect.arrayContaining(['risk', 'steps', 'verify', 'references', 'effort']),
    );
    expect(Object.keys(a.properties.capabilities.items!.properties!)).toContain('evidence');
    expect(Object.keys(a.properties.hazards.items!.properties!)).toEqual(['id', 'severity', 'capabilities', 'why', 'fix']);
    expect(Object.keys(a.properties.productionDelta.properties!)).toEqual(['score', 'verdict', 'newlyRequired', 'blockers']);
  });
});

describe('verify steps: a command or a sentence', () => {
  it('tells every published verify step apart by its opening', () => {
    const hows = Object.values(CAPABILITY_TEXTS).flatMap((t) => t.verify.map((v) => v.how));
    expect(hows.filter(isVerifyCommand).map((h) => h.split(' ')[0])).toEqual([
      'npx', 'curl', 'curl', 'npx', 'curl', 'curl', 'stripe', 'SELECT', 'curl', 'SELECT', 'curl', '<your',
    ]);
    expect(hows.filter((h) => !isVerifyCommand(h)).map((h) => h.split(' ').slice(0, 2).join(' '))).toEqual([
      'Run the', 'A test', 'Run the', 'The same', 'A test', 'Run the', 'A test', 'A test', 'Submit a', 'Open the', 'Look up', 'A test', 'A test',
    ]);
  });

  it('names the Agent Payment Endpoint Check where its rubric tests the capability: its path on this service and its rubric, not a result', () => {
    const naming = Object.entries(CAPABILITY_TEXTS).flatMap(([key, t]) => t.verify.filter((v) => v.how.includes('Agent Payment Endpoint Check')).map((v) => [key, v.how]));
    expect(naming.map(([key]) => key)).toEqual(['machine_discovery', 'payment_challenge_and_receipt', 'idempotency']);
    for (const [, how] of naming) {
      expect(how).toContain(`POST ${endpointCheck.path} on this service`);
      expect(how).toContain(`/docs/checks#${endpointCheck.id}-rubric`);
    }
    // The items the steps name are the check's own.
    const titles = (endpointCheck.describe() as { rubric: Array<{ title: string }> }).rubric.map((i) => i.title);
    for (const named of ['Discovery', 'One price', 'Reachability', 'x402 terms', 'MPP challenges', 'Bad credentials', 'Paid round trip']) expect(titles).toContain(named);
  });
});

describe('the Markdown report', () => {
  it('shows the summary, the plan, the hazards and each finding\'s risk, steps, verify and references', () => {
    const assessment = assessReadiness(request('agents', 'sandbox', { idempotency: 'partial', webhook_verification: 'missing' }));
    const md = readinessMarkdown({ assessment });
    expect(md.split('\n').slice(0, 5)).toEqual(['# Agent payment readiness: wf', '', `**Verdict: Ready, with gaps**, score ${assessment.score}/100`, '', assessment.summary]);
    const sections = md.split('\n').filter((l) => l.startsWith('## '));
    expect(sections).toEqual(['## Blockers', '## Plan', '## Hazards (2)', '## Findings (2)', '## In production']);
    expect(md).toContain('**Risk:** Idempotency that covers part of the flow');
    expect(md).toContain('1. Accept an Idempotency-Key header on every paid POST');
    // A command is code; a placeholder in a sentence is text, never an HTML tag.
    expect(md).toContain('- `stripe events resend <event id>`: With stripe listen --forward-to \\<your-webhook-url\\> running, ');
    expect(md).toContain('[Stripe: resolve webhook signature verification errors (Stripe-Signature, the raw body, the endpoint secret)](https://docs.stripe.com/webhooks/signature)');
    expect(md).toContain('- **Critical**: Payment challenge and receipt + Idempotency (hazard retry-pays-twice): ');
    // Codes in words (the view's label table), the finding's id on a line of its own.
    expect(md).toContain('### 1. High: Idempotency (effort: small)\n\nFinding id: idempotency.partial\n');
    expect(md).not.toMatch(/\(idempotency, finding|ready-with-gaps|before-first-payment/);
    // A command to paste is in backticks; a sentence stays text.
    expect(md).toContain('- The same Idempotency-Key with a different body: 422 (409 for an x402 payment-identifier)');
    expect(md).not.toContain('`The same Idempotency-Key');
    expect(reportMarkdown('readiness', { assessment })).toBe(md);
  });

  it('links only to the assessment\'s own sources; any other address is text beside its title', () => {
    const md = readinessMarkdown({
      assessment: { findings: [{ id: 'x', references: [{ title: 'bad', url: 'javascript:alert(1)' }, { title: 'other', url: 'https://e.com/a' }, { title: 'EIP-3009', url: 'https://eips.ethereum.org/EIPS/eip-3009' }] }] },
    });
    expect(md).toContain('**References:** bad (javascript:alert(1)); other (`https://e.com/a`); [EIP-3009](https://eips.ethereum.org/EIPS/eip-3009)');
  });
});

describe('the README walk-through', () => {
  it('shows the v2 answer the walk-through request really gets', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const { readinessCheck } = await import('@/lib/checks/readiness/entry');
    const a = assessReadiness(ReadinessRequest.parse(readinessCheck.example));
    const c = a.capabilities.find((x) => x.key === 'payment_challenge_and_receipt')!;
    expect(readme).toContain(`"verdict":"${a.verdict}","score":${a.score},`);
    expect(readme).toContain(JSON.stringify(a.summary));
    expect(readme).toContain(`"pointsPossible":${c.pointsPossible},"pointsEarned":${c.pointsEarned},`);
    // The versions are elided: they change with every rubric, and the README would go stale.
    expect(readme).toContain('"assessmentVersion":"…","rubricVersion":"…"');
    expect(readme).toContain(`"hazards":[{"id":"${a.hazards[0].id}","severity":"${a.hazards[0].severity}"`);
  });
});
