import { checks } from '@/lib/checks/registry';
import { callGuidance, type DiscoveryContext } from './openapi';

// /.well-known/x402: the x402 directories' list of paid resources (x402scan reads it when an origin has no
// OpenAPI document it can use): version 1, every paid check's absolute address from the check registry, and
// how to call them. Empty while the x402 rail is not live: nothing here could be paid over x402 then.

/**
 * The /.well-known/x402 document for this deployment.
 * @example x402WellKnown({ appUrl: 'https://checks.example', rails: ['x402'], usdcAddress }).resources[0] // 'https://checks.example/api/agent/readiness'
 */
export function x402WellKnown(ctx: DiscoveryContext): { version: 1; resources: string[]; instructions: string } {
  const origin = ctx.appUrl.replace(/\/$/, '');
  const resources = ctx.rails.includes('x402') ? checks().map((check) => `${origin}${check.path}`) : [];
  return { version: 1, resources, instructions: callGuidance() };
}
