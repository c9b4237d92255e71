// The soft-404 finding (visibility check v4): the site answers every path, files that do not exist included,
// with its catch-all page and status 200. It scores nothing of its own: each file it hides is already scored
// (or, for the agent surfaces, reported) as absent; the finding names the cause once, with the files it hides.

import { SURFACE_KINDS, SURFACE_PATHS } from '../agent-surfaces';
import type { Finding, ScoreInput } from './types';

const FILE_PATHS = { robotsTxt: '/robots.txt', sitemap: '/sitemap.xml', llmsTxt: '/llms.txt', llmsFullTxt: '/llms-full.txt' } as const;

/**
 * The `soft-404` finding, when any site file or agent surface answered with the site's catch-all page.
 * @example softNotFoundFindings(input).map((f) => f.id) // ['soft-404']
 */
export function softNotFoundFindings(input: ScoreInput): Finding[] {
  const files = input.signals.siteFiles;
  if (!files) return [];
  const surfaces = input.signals.agentSurfaces;
  const hidden = [
    ...(Object.keys(FILE_PATHS) as Array<keyof typeof FILE_PATHS>).filter((k) => files[k].state === 'soft-404').map((k) => (k === 'sitemap' && input.sitemapXml.url ? input.sitemapXml.url : FILE_PATHS[k])),
    ...(surfaces ? SURFACE_KINDS.filter((k) => surfaces[k].status === 'soft-404').map((k) => SURFACE_PATHS[k]) : []),
  ];
  if (hidden.length === 0) return [];
  return [
    {
      id: 'soft-404',
      severity: 'low',
      rubric: null,
      pointsLost: 0,
      observed: `a path that cannot exist answered ${files.notFoundProbe.status} with an HTML page, and ${hidden.join(', ')} answered with that same page`,
      why: 'The site answers every path with its home page (or one catch-all page) and status 200, so an agent or crawler that asks for a file the site does not publish gets an HTML page that claims to be it. Agents cannot tell a missing file from a present one by the status, and a page served where robots.txt, llms.txt or a JSON document should be is read as a broken file.',
      fix: 'Answer paths the site does not serve with 404 (in a single-page app, let the server or CDN return 404 for unknown paths and for file-like paths such as /robots.txt and /.well-known/*), and publish the files you mean to offer.',
    },
  ];
}
