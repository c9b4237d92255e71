// `npm run validate:payments`: the service on local payment rails, checked by mppx's own validators.
//
//   1. startRails() (anvil chain 8453 + USDC, a real x402 facilitator, the Stripe fake) and the service
//      (`next start` on a test build, tests/support/server.ts) configured with every rail.
//   2. `mppx discover validate <APP_URL>/openapi.json`: the OpenAPI discovery document, structurally.
//   3. `mppx validate <APP_URL> --endpoint POST:/api/agent/readiness --yes`: /llms.txt and /openapi.json, the 402
//      and both MPP challenges, a malformed credential answered with a fresh 402, and REAL payments over each
//      MPP method (evm on the local chain, card through an SPT on the Stripe fake) with their receipts.
//   4. `mppx validate <APP_URL> --endpoint POST:/api/agent/ai-visibility` without payment approval: the same
//      discovery, challenge and error-handling checks; mppx skips the payments. The visibility check fetches
//      its target before charging, and the only public example address (https://example.com/…) cannot be
//      reached on a machine without internet; a paid attempt would end, correctly, in 422 with nothing charged,
//      which mppx reports as a failed payment. That path is proven in tests/api/visibility-payments.test.ts.
//
// The on-chain balances and the Stripe fake's PaymentIntents are read before and after, so the summary says
// what really moved. Exits non-zero on any failure. Run by tests/e2e/mppx-validate.test.ts (so `npm test` runs it).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startRails, type Rails } from './rails/start';
import { startServer, type RunningServer } from '../tests/support/server';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { PRICE_USDC, PRICE_USDC_UNITS } from '@/lib/price';

const ROOT = path.resolve(__dirname, '..');
const MPPX = path.join(ROOT, 'node_modules', '.bin', 'mppx');
const READINESS = '/api/agent/readiness';
const VISIBILITY = '/api/agent/ai-visibility';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface CheckResult {
  label: string;
  detail?: string;
  severity: 'pass' | 'fail' | 'warn' | 'suggested' | 'skip';
}

interface ValidateReport {
  discovery: { found: boolean; valid: boolean; checks: CheckResult[] };
  endpoints: { method: string; path: string; challenge: CheckResult[]; errorHandling: CheckResult[]; payment: CheckResult[] }[];
  summary: { passed: number; failed: number; warnings: number; suggested: number; skipped: number };
}

const log = (line: string) => process.stdout.write(`[validate:payments] ${line}\n`);

function runMppx(args: string[], env: Record<string, string | undefined>, timeoutMs = 180_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(MPPX, args, { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment the mppx CLI reads, without anything of ours that would change its behaviour. */
function cliEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of ['MPPX_PRIVATE_KEY', 'MPPX_RPC_URL', 'MPPX_STRIPE_SECRET_KEY', 'MPPX_STRIPE_SPT_URL', 'MPPX_ACCOUNT', 'MPPX_CONFIG'])
    if (!(name in extra)) delete env[name];
  return env;
}

function parseReport(run: CliRun): ValidateReport | null {
  const start = run.stdout.indexOf('{');
  if (start < 0) return null;
  try {
    return JSON.parse(run.stdout.slice(start)) as ValidateReport;
  } catch {
    return null;
  }
}

function allChecks(report: ValidateReport): CheckResult[] {
  return [...report.discovery.checks, ...report.endpoints.flatMap((e) => [...e.challenge, ...e.errorHandling, ...e.payment])];
}

const counts = (r: ValidateReport) =>
  `${r.summary.passed} passed, ${r.summary.failed} failed, ${r.summary.warnings} warnings, ${r.summary.suggested} suggested, ${r.summary.skipped} skipped`;

/** Which MPP methods mppx paid successfully: each "Payment [method]: submitted" followed by "Payment: successful". */
function successfulPayments(report: ValidateReport): string[] {
  const paid: string[] = [];
  for (const endpoint of report.endpoints) {
    let method: string | undefined;
    for (const r of endpoint.payment) {
      const tagged = /^Payment \[(\w+)\]: (submitted|successful)$/.exec(r.label);
      if (tagged) method = tagged[1];
      if (r.severity === 'pass' && (r.label === 'Payment: successful' || tagged?.[2] === 'successful') && method) paid.push(method);
    }
  }
  return paid;
}

export async function validatePayments(): Promise<number> {
  // Standalone, build what is checked out now; under vitest the run's shared build is reused.
  process.env.PAC_BUILD_TOKEN ||= `validate-${randomBytes(6).toString('hex')}`;
  const failures: string[] = [];
  let rails: Rails | undefined;
  let server: RunningServer | undefined;
  try {
    rails = await startRails();
    server = await startServer({ ...rails.env, RATE_LIMIT_PER_IP: '100000', LOG_LEVEL: 'silent' });
    const rails_ = rails;
    const appUrl = server.url;
    log(`service ${appUrl} on local rails: chain ${rails.chainId} (${rails.rpcUrl}), facilitator ${rails.facilitatorUrl}, Stripe fake ${rails.stripe.apiUrl}`);

    const balances = async () => ({ payer: await rails_.usdcBalance(rails_.payer.address), payTo: await rails_.usdcBalance(rails_.payTo) });
    const succeededIntents = () => rails_.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded').length;
    const before = await balances();
    const intentsBefore = succeededIntents();

    // 1. The discovery document.
    const discover = await runMppx(['discover', 'validate', `${appUrl}/openapi.json`, '--format', 'json'], cliEnv({}));
    let discoverOk = discover.code === 0;
    try {
      const doc = JSON.parse(discover.stdout.slice(discover.stdout.indexOf('{'))) as { valid: boolean; errorCount: number; warningCount: number; issues: { severity: string; path: string; message: string }[] };
      discoverOk &&= doc.valid && doc.errorCount === 0;
      log(`mppx discover validate ${appUrl}/openapi.json: ${doc.valid ? 'valid' : 'INVALID'}, ${doc.errorCount} errors, ${doc.warningCount} warnings`);
      for (const issue of doc.issues) log(`  [${issue.severity}] ${issue.path}: ${issue.message}`);
    } catch {
      discoverOk = false;
      log(`mppx discover validate: unreadable output (exit ${discover.code}):\n${discover.stdout}${discover.stderr}`);
    }
    if (!discoverOk) failures.push('mppx discover validate');

    // 2. The readiness endpoint, end to end, with real payments on the local rails.
    const payerEnv = {
      MPPX_PRIVATE_KEY: rails.clientEnv.MPPX_PRIVATE_KEY,
      MPPX_RPC_URL: rails.clientEnv.MPPX_RPC_URL,
      MPPX_STRIPE_SECRET_KEY: rails.clientEnv.MPPX_STRIPE_SECRET_KEY,
      MPPX_STRIPE_SPT_URL: rails.clientEnv.MPPX_STRIPE_SPT_URL,
    };
    const paid = await runMppx(
      ['validate', appUrl, '--endpoint', `POST:${READINESS}`, '--body', JSON.stringify(readinessCheck.example), '--yes', '--output-json'],
      cliEnv(payerEnv),
    );
    const paidReport = parseReport(paid);
    if (!paidReport) {
      failures.push(`mppx validate POST ${READINESS}`);
      log(`mppx validate POST ${READINESS}: unreadable output (exit ${paid.code}):\n${paid.stdout}${paid.stderr}`);
    } else {
      const methods = successfulPayments(paidReport);
      log(`mppx validate ${appUrl} POST ${READINESS}: exit ${paid.code}; ${counts(paidReport)}`);
      log(`  payments: ${methods.length ? methods.map((m) => `${m} successful`).join(', ') : 'none successful'}`);
      for (const r of allChecks(paidReport).filter((c) => c.severity !== 'pass')) log(`  [${r.severity}] ${r.label}${r.detail ? ` (${r.detail})` : ''}`);
      const ok = paid.code === 0 && paidReport.summary.failed === 0 && paidReport.discovery.found && paidReport.discovery.valid;
      if (!ok) failures.push(`mppx validate POST ${READINESS}`);
      for (const method of ['evm', 'stripe']) if (!methods.includes(method)) failures.push(`mppx paid POST ${READINESS} with ${method}`);
    }

    // 3. The visibility endpoint: discovery, challenge and error handling (payments skipped, see the header).
    const unpaid = await runMppx(
      ['validate', appUrl, '--endpoint', `POST:${VISIBILITY}`, '--body', JSON.stringify({ url: 'https://example.com/pricing' }), '--output-json'],
      // An empty (not absent) Stripe key keeps mppx from borrowing one from a locally installed Stripe CLI.
      cliEnv({ MPPX_STRIPE_SECRET_KEY: '' }),
    );
    const unpaidReport = parseReport(unpaid);
    if (!unpaidReport) {
      failures.push(`mppx validate POST ${VISIBILITY}`);
      log(`mppx validate POST ${VISIBILITY}: unreadable output (exit ${unpaid.code}):\n${unpaid.stdout}${unpaid.stderr}`);
    } else {
      log(`mppx validate ${appUrl} POST ${VISIBILITY} (challenge and error handling; payment not approved): exit ${unpaid.code}; ${counts(unpaidReport)}`);
      for (const r of allChecks(unpaidReport).filter((c) => c.severity !== 'pass')) log(`  [${r.severity}] ${r.label}${r.detail ? ` (${r.detail})` : ''}`);
      const challengePassed = unpaidReport.endpoints.some((e) => e.challenge.some((c) => c.label === 'Challenge parseable' && c.severity === 'pass'));
      if (unpaid.code !== 0 || unpaidReport.summary.failed > 0 || !challengePassed) failures.push(`mppx validate POST ${VISIBILITY}`);
    }

    // 4. What really moved.
    const after = await balances();
    const intents = succeededIntents() - intentsBefore;
    const usdc = (n: bigint) => (Number(n) / 1e6).toFixed(6);
    log(`on chain: payer -${usdc(before.payer - after.payer)} USDC, payTo +${usdc(after.payTo - before.payTo)} USDC; Stripe fake: ${intents} PaymentIntent(s) succeeded`);
    if (after.payTo - before.payTo !== PRICE_USDC_UNITS || before.payer - after.payer !== PRICE_USDC_UNITS) failures.push(`exactly ${PRICE_USDC} moved from the payer to PAY_TO_ADDRESS`);
    if (intents !== 1) failures.push('exactly one PaymentIntent');
  } catch (error) {
    failures.push(`setup: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await server?.stop();
    await rails?.stop();
  }
  if (failures.length) {
    log(`FAILED: ${failures.join('; ')}`);
    return 1;
  }
  log('PASSED: discovery document valid; mppx validate passed with a successful evm payment and a successful card payment');
  return 0;
}

if (/validate-payments\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  validatePayments().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`validate:payments: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
