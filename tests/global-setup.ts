import crypto from 'node:crypto';

// One token per test run: the first test that needs a production build makes it, the rest reuse it.
export default function setup() {
  process.env.PAC_BUILD_TOKEN = crypto.randomBytes(8).toString('hex');
  process.env.LOG_LEVEL ??= 'silent';
  // Reports stay deterministic (no rendering times) unless a suite renders on purpose: tests/visibility/render*.
  process.env.RENDERER ??= 'off';
}
