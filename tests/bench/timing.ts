// The robots.txt matcher's speed on adversarial patterns, measured here as a ratio against a literal pattern
// (timing has no place in a unit test: tests/visibility/robots.test.ts asserts the verdicts only).
import { parseRobotsTxt, robotsVerdict } from '@/lib/checks/visibility/robots';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median milliseconds per call of `fn`, over batches of `perBatch` calls. */
function perCall(fn: () => void, batches = 15, perBatch = 50): number {
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < perBatch; i++) fn();
    times.push((performance.now() - started) / perBatch);
  }
  return median(times);
}

/**
 * A robots.txt verdict on an adversarial wildcard pattern (`/*a*a…*ab`, 2,000 wildcards) against a 5,000-character
 * path, vs the same verdict on a literal pattern of the same length: backtracking would make the ratio explode.
 */
export async function benchRobotsAdversarial() {
  const paths = ['/' + 'a'.repeat(5000), '/' + 'a'.repeat(5000) + 'b'];
  const adversarial = parseRobotsTxt(`User-agent: *\nDisallow: /${'*a'.repeat(2000)}b\n`);
  const literal = parseRobotsTxt(`User-agent: *\nDisallow: /${'a'.repeat(4000)}b\n`);
  const verdicts = (robots: ReturnType<typeof parseRobotsTxt>) => () => {
    for (const p of paths) robotsVerdict(robots, 'x', p);
  };
  perCall(verdicts(adversarial), 3); // warm up both before measuring either
  perCall(verdicts(literal), 3);
  const adversarialMs = perCall(verdicts(adversarial));
  const literalMs = perCall(verdicts(literal));
  const ratio = adversarialMs / literalMs;
  console.log(`[bench] robots verdicts, adversarial wildcard pattern: ${adversarialMs.toFixed(3)} ms; literal pattern of the same length (baseline): ${literalMs.toFixed(3)} ms`);
  console.log(`[bench] adversarial / literal robots verdict ratio: ${ratio.toFixed(1)} (target <= 50)`);
  return { adversarialMs, literalMs, ratio };
}
