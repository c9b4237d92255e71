import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@/lib/config';

// On Vercel each function instance has its own short-lived disk: a SQLite store there would split keys and
// balances between instances and lose them on recycling, so the configuration refuses to start without Redis or KV.

const BASE = { NODE_ENV: 'production', CREDITS_KEY_SECRET: 's'.repeat(40), APP_URL: 'https://checks.example.com' };

describe('the store on Vercel', () => {
  it('refuses SQLite when VERCEL is set, naming what to set and why', () => {
    expect(() => parseConfig({ ...BASE, VERCEL: '1' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...BASE, VERCEL: '1' })).toThrow(
      /VERCEL is set but no shared store is: set KV_REST_API_URL and KV_REST_API_TOKEN \(Vercel KV \/ Upstash Redis\) or REDIS_URL\. SQLite is refused on Vercel/,
    );
  });

  it('starts on Vercel with Vercel KV or Redis', () => {
    expect(parseConfig({ ...BASE, VERCEL: '1', KV_REST_API_URL: 'https://kv.example.com', KV_REST_API_TOKEN: 't'.repeat(20) }).storeKind).toBe('vercel-kv');
    expect(parseConfig({ ...BASE, VERCEL: '1', REDIS_URL: 'rediss://default:pw@redis.example.com:6379' }).storeKind).toBe('redis');
  });

  it('keeps SQLite the default off Vercel', () => {
    expect(parseConfig({ ...BASE, DATA_DIR: '/tmp/pac-vercel-test' }).storeKind).toBe('sqlite');
  });

  it('stops the process at startup with that one message (lib/startup.ts)', () => {
    const root = path.resolve(__dirname, '../..');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./lib/startup.ts').then((m) => (m.startup ?? m.default.startup)())"], {
      cwd: root,
      env: { PATH: process.env.PATH, ...BASE, VERCEL: '1', DATA_DIR: '/tmp/pac-vercel-test' } as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('[paid-agent-checks] refusing to start. Invalid configuration:');
    expect(run.stderr).toContain('SQLite is refused on Vercel');
    expect(run.stderr).not.toContain('    at ');
  });
});
