// `npm run bench` is not part of `npm test`, so nothing else would notice a bench module that no longer loads
// under tsx, outside vitest (a bench file that imports a helper which imports vitest is the usual way to break it).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

describe('npm run bench', () => {
  it('loads every section module under tsx and lists the sections the README names', async () => {
    const { stdout } = await run(TSX, ['tests/bench/run.ts', '--list'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' } });
    expect(stdout.trim().split('\n')).toEqual([
      'readiness',
      'spends',
      'store-lock-wait',
      'visibility-concurrency',
      'visibility-extraction',
      'visibility-huge-page',
      'visibility-page-size',
      'visibility-hostile',
      'visibility-hostile-markup',
      'visibility-robots',
      'visibility-pool',
      'visibility-render',
      'payments-challenge',
      'payments-paid-overhead',
      'x402-reference',
      'robots-adversarial',
      'contention',
      'payment-endpoint',
      'renderer',
    ]);
  });

  it('refuses a section name it does not have, naming the ones it has', async () => {
    const failed = await run(TSX, ['tests/bench/run.ts', 'x402-refrence'], { cwd: ROOT }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('no bench section named x402-refrence; the sections: readiness, spends');
  });
});
