// Indexability: may search engines index the page, quote it, and under which address.

import { uniqueRaw, withDirective } from './shared';
import type { RubricItem, ScoreInput } from './types';

/** What the canonical-missing finding saw: no canonical at all, or one only in the body (where the head ended early, or written there). */
function canonicalMissingObserved(page: ScoreInput['page']): string {
  const broken = page.headBrokenAt;
  const inHead = broken === null ? 'no <link rel="canonical"> in the <head>' : `no <link rel="canonical"> in the <head>, which the ${broken.element === '#text' ? 'text' : `<${broken.element}>`} on line ${broken.line} ends early`;
  if (page.canonicalInBody) return `${inHead}; the page has one only in the <body>, where search engines ignore it`;
  return broken === null ? 'no <link rel="canonical"> in the page' : inHead;
}

/**
 * The indexability items, in published order.
 * @example INDEXABILITY_ITEMS.map((item) => item.id) // ['index.noindex', 'index.snippet', 'canonical.valid']
 */
export const INDEXABILITY_ITEMS: readonly RubricItem[] = [
  {
    id: 'index.noindex',
    category: 'indexability',
    points: 12,
    criterion:
      'No noindex or none in a robots meta tag or X-Robots-Tag header addressed to all robots or to Googlebot, Bingbot, MSNBot or Applebot.',
    evaluate(input, points) {
      const { page } = input;
      if (!page.noindexMeta && !page.noindexHeader) return { earned: points };
      // A past unavailable_after (read only where it addresses Google) is a noindex from that date on.
      const isNoindex = (d: string) => d === 'noindex' || d === 'none' || (page.robots.unavailableAfterPassed && d.startsWith('unavailable_after:'));
      const meta = uniqueRaw(withDirective(page.robots.meta, isNoindex));
      const header = uniqueRaw(withDirective(page.robots.header, isNoindex));
      const bots = [...new Set([...withDirective(page.robots.meta, isNoindex), ...withDirective(page.robots.header, isNoindex)].map((r) => r.bot ?? 'all robots'))];
      const edits = [
        ...meta.map((m) => `remove noindex/none from ${m}`),
        ...header.map((h) => `remove noindex/none from the response header "${h}" (server, CDN or framework config)`),
      ];
      return {
        earned: 0,
        finding: {
          id: 'noindex',
          severity: 'critical',
          observed: [...meta, ...header].join('; '),
          why: `The page tells ${bots.join(', ')} not to index it, so it is kept out of search results and out of the AI answers built on them (Google's AI features use only indexed pages).`,
          fix: `${edits.join('; ')}. Keep noindex only on pages you want hidden.`,
        },
      };
    },
  },
  {
    id: 'index.snippet',
    category: 'indexability',
    points: 4,
    criterion:
      'No nosnippet and no max-snippet below 50 for search crawlers, so the page stays eligible for snippets and AI Overviews (max-snippet 1-49: 2 points).',
    evaluate(input, points) {
      const { robots } = input.page;
      const limited = robots.nosnippet || robots.maxSnippet === 0;
      const short = !limited && robots.maxSnippet > 0 && robots.maxSnippet < 50;
      if (!limited && !short) return { earned: points };
      const sources = uniqueRaw([
        ...withDirective(robots.meta, (d) => d === 'nosnippet' || d.startsWith('max-snippet:')),
        ...withDirective(robots.header, (d) => d === 'nosnippet' || d.startsWith('max-snippet:')),
      ]);
      return {
        earned: limited ? 0 : 2,
        finding: {
          id: 'snippet-restricted',
          severity: limited ? 'high' : 'medium',
          observed: sources.join('; '),
          why: limited
            ? 'nosnippet (or max-snippet:0) forbids text snippets, which also makes the page ineligible as a source in Google\'s AI Overviews and AI Mode.'
            : `max-snippet:${robots.maxSnippet} limits quotes to ${robots.maxSnippet} characters, which leaves little for search results and AI answers to show.`,
          fix: 'Remove nosnippet and max-snippet from the robots meta tag and X-Robots-Tag header (or set max-snippet:-1), and use data-nosnippet on the specific passages you want kept out.',
        },
      };
    },
  },
  {
    id: 'canonical.valid',
    category: 'indexability',
    points: 4,
    criterion:
      'Exactly one rel=canonical address in the <head>, an http(s) URL equal to the page address (one canonical pointing elsewhere: 2 points; several different addresses or invalid: 0). The same address written twice counts once.',
    evaluate(input, points) {
      const { page, finalUrl } = input;
      const fixSelf = `Put exactly one <link rel="canonical" href="${finalUrl}"> in the <head>.`;
      if (page.canonicalCount === 0) {
        return {
          earned: 0,
          finding: {
            id: 'canonical-missing',
            severity: 'low',
            observed: canonicalMissingObserved(page),
            why: `Without a canonical, crawlers pick one of the page's duplicate addresses (tracking parameters, trailing slashes, http/https) themselves, and signals can be split between them.${page.canonicalInBody ? ' A <link rel="canonical"> in the <body> is ignored by search engines: they read it only in the head.' : ''}`,
            fix: page.canonicalInBody
              ? `Move the <link rel="canonical"> into the <head>${page.headBrokenAt ? `, above the ${page.headBrokenAt.element === '#text' ? 'text' : `<${page.headBrokenAt.element}>`} on line ${page.headBrokenAt.line} that ends the head early` : ''}, with href="${finalUrl}".`
              : fixSelf,
          },
        };
      }
      if (page.canonicalDistinct > 1) {
        return {
          earned: 0,
          finding: {
            id: 'canonical-multiple',
            severity: 'medium',
            observed: `${page.canonicalCount} <link rel="canonical"> elements naming ${page.canonicalDistinct} different addresses; the first points to ${page.canonical ?? '(invalid)'}`,
            why: 'When a page declares several canonicals, Google ignores them all.',
            fix: `Remove the extra canonical links (often one from the CMS and one from an SEO plugin). ${fixSelf}`,
          },
        };
      }
      if (page.canonical === null) {
        return {
          earned: 0,
          finding: {
            id: 'canonical-invalid',
            severity: 'medium',
            observed: '<link rel="canonical"> has an empty, unparsable or non-http(s) href',
            why: 'An invalid canonical is ignored, so the page gets no canonical at all.',
            fix: fixSelf,
          },
        };
      }
      if (!page.canonicalIsSelf) {
        return {
          earned: 2,
          finding: {
            id: 'canonical-elsewhere',
            severity: 'medium',
            observed: `<link rel="canonical" href="${page.canonical}"> on ${finalUrl}`,
            why: 'The page declares another address as its canonical, so search engines index and cite that address instead of this one.',
            fix: `If this page is the one to show, point the canonical at ${finalUrl}; if the other address is, check that one instead.`,
          },
        };
      }
      return { earned: points };
    },
  },];
