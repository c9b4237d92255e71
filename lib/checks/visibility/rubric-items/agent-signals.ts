// The findings of visibility check v3 about what a site offers agents beyond its pages, who says AI may use
// the page, and what a crawler must pay. They score nothing: a site need not publish an MCP server card or an
// OAuth metadata document, license its content or charge crawlers, so points for any of them would not be
// fair to every site. A document that is published but broken is a fault, though, so it is a `medium`
// finding (`high` when a key directory publishes private keys).

import { SURFACE_KINDS, type SurfaceKind } from '../agent-surfaces';
import { AI_USE_PRECEDENCE, AI_USES, type AiUseKey } from '../ai-use';
import type { Finding, ScoreInput } from './types';

const SURFACE_NAMES: Record<SurfaceKind, string> = {
  apiCatalog: 'API catalog (RFC 9727)',
  mcpServerCard: 'MCP server card',
  a2aAgentCard: 'A2A agent card',
  oauthAuthorizationServer: 'OAuth authorization server metadata (RFC 8414)',
  oauthProtectedResource: 'OAuth protected resource metadata (RFC 9728)',
  webBotAuthDirectory: 'Web Bot Auth key directory',
  agentSkills: 'Agent Skills index',
};

const USE_NAMES: Record<AiUseKey, string> = { train: 'AI training', search: 'search', aiInput: 'input to AI answers' };

type Draft = Omit<Finding, 'rubric' | 'pointsLost'>;

/**
 * The agent-surface, AI-use, licence and payment findings of one site.
 * @example agentSignalFindings(input).map((f) => f.id) // ['agent-surface-invalid', 'ai-use-conflict']
 */
export function agentSignalFindings(input: ScoreInput): Finding[] {
  const out: Draft[] = [];
  const { agentSurfaces: surfaces, aiUse, commerce } = input.signals;
  const rsl = input.signals.licensing.rsl ?? null;

  if (surfaces) {
    const invalid = SURFACE_KINDS.filter((k) => surfaces[k].status === 'invalid');
    if (invalid.length > 0) {
      const leak = invalid.some((k) => k === 'webBotAuthDirectory' && surfaces[k].problems.some((p) => p.startsWith('publishes private key material')));
      out.push({
        id: 'agent-surface-invalid',
        severity: leak ? 'high' : 'medium',
        observed: invalid.map((k) => `${surfaces[k].url} (${SURFACE_NAMES[k]}) ${surfaces[k].problems.join('; ') || 'is not valid'}`).join('; '),
        why: 'The site publishes a document agents look for, but not in the form its specification requires, so agents that read it fail or skip it. A key directory that holds private keys lets anyone sign requests as the site\'s agents.',
        fix: leak
          ? 'Remove the private members (d, p, q, dp, dq, qi, k) from the key directory at once and replace those keys; then fix the other problems listed.'
          : 'Fix each problem listed, or stop serving the document if the site does not offer that surface.',
      });
    }
    const found = SURFACE_KINDS.filter((k) => surfaces[k].status === 'found');
    if (found.length > 0 || surfaces.linkHeaders.length > 0) {
      out.push({
        id: 'agent-surfaces',
        severity: 'info',
        observed: [
          ...found.map((k) => `${SURFACE_NAMES[k]}${surfaces[k].name ? ` "${surfaces[k].name}"` : ''}${surfaces[k].entries !== null ? ` (${surfaces[k].entries} entries)` : ''}`),
          surfaces.linkHeaders.length > 0 ? `Link header relations: ${[...new Set(surfaces.linkHeaders.map((l) => l.rel))].join(', ')}` : null,
        ]
          .filter(Boolean)
          .join('; '),
        why: 'These documents tell agents what the site offers beyond its pages (APIs, MCP and A2A endpoints, how to authenticate, which keys sign its bots). None is required; each one present lets agents use the site without guessing.',
        fix: 'No change needed. Keep them in step with what the site serves.',
      });
    }
  }

  if (aiUse) {
    const conflicting = AI_USES.filter((u) => aiUse[u].conflicts.length > 0);
    if (conflicting.length > 0) {
      out.push({
        id: 'ai-use-conflict',
        severity: 'low',
        observed: conflicting
          .map((u) => `${USE_NAMES[u]}: ${aiUse[u].sources.map((s) => `${s.source} says ${s.says} (${s.detail})`).join(', ')}`)
          .join('; '),
        why: `The site's usage signals disagree, so crawlers that read different ones act differently. This report reads them as: ${AI_USE_PRECEDENCE}`,
        fix: 'Make every signal say the same for each use: robots.txt, Content-Signal, Content-Usage, TDMRep and the RSL licence.',
      });
    }
  }

  if (rsl !== null && rsl.status !== 'found') {
    out.push({
      id: 'rsl-license-unusable',
      severity: rsl.status === 'unreachable' ? 'low' : 'medium',
      observed: `the licence ${rsl.url} ${rsl.status === 'missing' ? `answered ${rsl.httpStatus}` : rsl.status === 'unreachable' ? (rsl.httpStatus === null ? 'did not answer' : `answered ${rsl.httpStatus}`) : `is not an RSL 1.0 document: ${rsl.problem}`}`,
      why: 'robots.txt (or the page\'s Link header) names an RSL licence, but AI systems cannot read its terms there, so the licence states nothing to them.',
      fix: 'Serve the licence at that address as an RSL 1.0 document (<rsl xmlns="https://rslstandard.org/rsl"> with a <content> for your pages), or correct the License: line.',
    });
  }

  const lic = input.signals.licensing;
  if (lic.tdmPolicyReachable === false) {
    out.push({
      id: 'tdm-policy-unreachable',
      severity: 'low',
      observed: `TDMRep tdm-policy ${lic.tdmPolicy} (from the ${lic.tdmSource === 'file' ? '/.well-known/tdmrep.json rule' : 'tdm-policy header'}) does not answer 2xx`,
      why: 'The site reserves text and data mining rights and points to a policy saying on what terms they may be licensed, but the policy cannot be fetched, so those terms reach no one.',
      fix: 'Serve the policy (an ODRL JSON-LD document) at that address, or correct tdm-policy.',
    });
  }

  if (commerce && commerce.challenges.length > 0) {
    const ppc = commerce.challenges.filter((c) => c.protocol === 'pay-per-crawl');
    const other = commerce.challenges.filter((c) => c.protocol !== 'pay-per-crawl');
    const price = (c: (typeof commerce.challenges)[number]) => (c.amount === null ? 'no price stated' : `${c.currency ?? ''} ${c.amount}`.trim());
    if (ppc.length > 0) {
      out.push({
        id: 'pay-per-crawl',
        severity: 'info',
        observed: ppc.map((c) => `${c.source}: HTTP ${c.httpStatus}, crawler-price ${price(c)}${c.error ? `, crawler-error ${c.error}` : ''}`).join('; '),
        why: 'The site charges crawlers per request (Cloudflare pay-per-crawl). Only crawlers onboarded with Cloudflare and signing their requests (Web Bot Auth) can pay; the others get 402 and no page.',
        fix: 'No change needed if intended. Crawlers you want to read the page for free can be exempted in the pay-per-crawl settings.',
      });
    }
    if (other.length > 0) {
      out.push({
        id: 'payment-challenge',
        severity: 'info',
        observed: other.map((c) => `${c.source}: ${c.protocol === 'x402' ? 'x402 PAYMENT-REQUIRED' : 'MPP WWW-Authenticate: Payment'} ${price(c)}${c.network ? ` on ${c.network}` : ''}`).join('; '),
        why: 'The page asks agents to pay before it answers (x402 or the Machine Payments Protocol); agents with a wallet can pay and read it, others cannot.',
        fix: 'No change needed if intended. Check that the price and the network are the ones you mean to charge.',
      });
    }
  }
  return out.map((f) => ({ ...f, rubric: null, pointsLost: 0 }));
}
