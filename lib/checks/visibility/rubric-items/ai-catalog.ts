// The AI Catalog finding (visibility check v4). A catalog scores nothing, as the other agent surfaces: no site
// needs one to be visible, and Lighthouse's ard-schema audit counts a site without one as not applicable. One
// that is published broken (or named by robots.txt or the page and not there), or that lists a card agents
// cannot use, misleads the agents that read it: a `medium` finding, worth 0 points.

import { aiCatalogFaults } from '../ai-catalog';
import type { Finding, ScoreInput } from './types';

/**
 * The `ai-catalog-invalid` finding, when the site's AI Catalog or a card it lists is broken.
 * @example aiCatalogFindings(input).map((f) => f.id) // ['ai-catalog-invalid']
 */
export function aiCatalogFindings(input: ScoreInput): Finding[] {
  const catalog = input.signals.agentSurfaces?.aiCatalog ?? null;
  if (catalog === null) return [];
  const faults = aiCatalogFaults(catalog);
  if (faults.length === 0) return [];
  return [
    {
      id: 'ai-catalog-invalid',
      severity: 'medium',
      rubric: null,
      pointsLost: 0,
      observed: faults.join('; '),
      why: 'The AI Catalog (Agentic Resource Discovery) is where agents and Lighthouse\'s ard-schema audit look for the MCP servers and A2A agents a site offers. A catalog that is named but not served, not valid, or lists a card agents cannot use sends them to nothing.',
      fix: 'Serve the catalog as a JSON object with an "entries" list; give each entry an "identifier" (a URN such as urn:air:example.com:mcp:shop), a "displayName", a "mediaType" and either the card inline as "data" or its address as "url"; make each listed card valid. Or remove the Agentmap line, link or header that names a catalog the site does not serve.',
    },
  ];
}
