// The documentation's pages, in reading order: the sidebar, the sitemap and /llms.txt list them from here.
// Plain data, so the browser's sidebar can import it without pulling in anything that renders a page.

export interface DocsPage {
  path: string;
  /** The sidebar's name for it. */
  label: string;
  /** Its h1 and title. */
  title: string;
  /** One line: the page's meta description and its /llms.txt line. */
  description: string;
}

export const DOCS_PAGES: readonly DocsPage[] = [
  {
    path: '/docs',
    label: 'Quick start',
    title: 'Documentation',
    description: 'The paid checks over HTTP in five minutes: set the address, make a first call, retry safely, and where to read on.',
  },
  {
    path: '/docs/api',
    label: 'REST reference',
    title: 'REST reference',
    description: 'Every endpoint, paid and free, with its request, responses, JSON Schemas and errors; every problem type; the limits.',
  },
  {
    path: '/docs/payments',
    label: 'Payments',
    title: 'Payments',
    description: 'Four ways to pay for a check: a prepaid credits key, MPP card, MPP USDC on Base, x402 v2; purchases, renewals and refunds.',
  },
  {
    path: '/docs/mcp',
    label: 'MCP',
    title: 'MCP',
    description: 'The checks as MCP tools over Streamable HTTP, paid in band or with a prepaid key.',
  },
  {
    path: '/docs/checks',
    label: 'Checks and rubrics',
    title: 'Checks and rubrics',
    description: 'What each check reads, how it scores, every rubric item, and what it does not see.',
  },
  {
    path: '/docs/self-hosting',
    label: 'Self-hosting',
    title: 'Self-hosting',
    description: 'Running the service yourself: settings, stores, health and metrics, logs, and the keys and ledger tools.',
  },
];

/**
 * Where an anchor of the single-page documentation lives now, for the addresses people and other sites still
 * hold (`/docs#errors`): `undefined` for an anchor the quick start keeps, or one never published.
 * `endpointAnchors` are the REST reference's sections, which follow the endpoint registry.
 * @example movedAnchor('errors', []) // '/docs/api#errors'
 */
export function movedAnchor(anchor: string, endpointAnchors: readonly string[]): string | undefined {
  const moved = MOVED[anchor];
  if (moved !== undefined) return moved.includes('#') ? moved : `${moved}#${anchor}`;
  return anchor.startsWith('problem-') || endpointAnchors.includes(anchor) ? `/docs/api#${anchor}` : undefined;
}

// The old page's sections and the page each is on now (with its new anchor where the id changed: the checks
// page names each check's sections by the check's id).
const MOVED: Record<string, string> = {
  api: '/docs/api',
  errors: '/docs/api',
  limits: '/docs/api',
  paying: '/docs/payments',
  'quick-start-prepaid': '/docs/payments',
  'quick-start-mpp-card': '/docs/payments',
  'quick-start-mpp-evm': '/docs/payments',
  'quick-start-x402': '/docs/payments',
  billing: '/docs/payments',
  'quick-start-mcp': '/docs/mcp',
  'not-seen': '/docs/checks#not-seen',
  crawlers: '/docs/checks',
  'readiness-rubric': '/docs/checks',
  'readiness-evidence': '/docs/checks',
  'readiness-findings': '/docs/checks',
  'readiness-hazards': '/docs/checks',
  'readiness-plan': '/docs/checks',
  'readiness-sources': '/docs/checks',
  'readiness-changes': '/docs/checks',
  'visibility-rubric': '/docs/checks#ai-visibility-rubric',
  'visibility-rubric-changes': '/docs/checks',
};
