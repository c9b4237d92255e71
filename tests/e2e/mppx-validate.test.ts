// `npm run validate:payments` as part of `npm test`: mppx's own validators (`mppx discover validate` and
// `mppx validate`, which pays for real on the local rails) against the service under `next start`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

function runScript(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // The script starts (and stops) its own rails and server; PAC_BUILD_TOKEN from the vitest run is
    // inherited, so it reuses this run's production build.
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/validate-payments.ts'],
      { cwd: ROOT, env: process.env, timeout: 400_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe('npm run validate:payments', () => {
  it('passes mppx discover validate and mppx validate, paying over evm and card on the local rails', async () => {
    const { code, output } = await runScript();
    expect(output, output).toMatch(/mppx discover validate \S+\/openapi\.json: valid, 0 errors/);
    expect(output, output).toMatch(/POST \/api\/agent\/readiness: exit 0; \d+ passed, 0 failed/);
    expect(output, output).toMatch(/payments: .*evm successful/);
    expect(output, output).toMatch(/payments: .*stripe successful/);
    expect(output, output).toMatch(/POST \/api\/agent\/ai-visibility .*exit 0; \d+ passed, 0 failed/);
    expect(output, output).toMatch(/on chain: payer -1\.000000 USDC, payTo \+1\.000000 USDC; Stripe fake: 1 PaymentIntent\(s\) succeeded/);
    expect(output, output).toMatch(/PASSED/);
    expect(code, output).toBe(0);
  }, 420_000);
});
