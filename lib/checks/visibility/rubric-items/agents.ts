// Agents: what the site offers machine readers beyond the HTML page (Markdown), and whether its
// Content-Signal usage preferences agree with its robots.txt rules.

import type { ContentSignalConflict } from '../site-signals';
import type { RubricItem } from './types';

const CONFLICT_USE: Record<ContentSignalConflict['key'], string> = {
  search: 'search indexing',
  'ai-input': 'use as input for AI answers',
  'ai-train': 'AI model training',
};

/**
 * The agent items, in published order.
 * @example AGENT_ITEMS.map((item) => item.id) // ['agents.markdown', 'signals.consistent']
 */
export const AGENT_ITEMS: readonly RubricItem[] = [
  {
    id: 'agents.markdown',
    category: 'agents',
    points: 2,
    criterion:
      'The page is offered as Markdown: its address answers "Accept: text/markdown" with the page\'s own Markdown (Markdown for Agents: it carries the page\'s title or first heading, or most of its words without being the very document / sends), or it links an alternate text/markdown version.',
    evaluate(input, points) {
      const m = input.signals.markdown;
      if (m.offered) return { earned: points };
      if (m.matchesPage === false) {
        return {
          earned: 0,
          finding: {
            id: 'markdown-not-the-page',
            severity: 'medium',
            observed:
              m.home === 'generic'
                ? `GET ${input.finalUrl} with "Accept: text/markdown" answered ${m.contentType} with the same Markdown as / sends, without the page's title or first heading: one document for every address, not this page's`
                : `GET ${input.finalUrl} with "Accept: text/markdown" answered ${m.contentType}, but the Markdown has neither the page's title nor most of its words`,
            why: 'An agent that asks for Markdown gets this answer instead of the page: an error or placeholder served as text/markdown with 200 hides the page from every agent that negotiates.',
            fix: 'Serve the page\'s own content as Markdown for "Accept: text/markdown" (or answer it with the HTML page), and answer with an error status when there is none.',
          },
        };
      }
      return {
        earned: 0,
        finding: {
          id: 'markdown-not-offered',
          severity: 'low',
          observed: `GET ${input.finalUrl} with "Accept: text/markdown" ${m.contentType === null ? 'got no answer' : `answered ${m.contentType}`}, and the page has no <link rel="alternate" type="text/markdown">`,
          why: 'Agents read text and pay per token: a Markdown copy carries the content without the markup, scripts and navigation of the HTML page, so it is cheaper and more reliable for them to read.',
          fix: 'Answer "Accept: text/markdown" with a Markdown version of the page (Cloudflare\'s Markdown for Agents does this at the edge), or publish one (e.g. /page.md) and link it with <link rel="alternate" type="text/markdown" href="...">.',
        },
      };
    },
  },
  {
    id: 'signals.consistent',
    category: 'usage signals',
    points: 2,
    criterion:
      'No Content-Signal "no" contradicts robots.txt: a use the signals refuse (search, ai-input, ai-train) is not open to a crawler that exists for that use and that robots.txt lets fetch the page. No Content-Signal at all: full points.',
    evaluate(input, points) {
      const conflicts = input.signals.contentSignalConflicts;
      if (conflicts.length === 0) return { earned: points };
      const search = conflicts.some((c) => c.key === 'search');
      return {
        earned: 0,
        finding: {
          id: 'content-signal-conflict',
          severity: search ? 'medium' : 'low',
          observed: conflicts
            .map((c) => `${c.key}=no (robots.txt line${c.lines.length > 1 ? 's' : ''} ${c.lines.join(', ')}) while robots.txt allows ${c.tokens.join(', ')}`)
            .join('; '),
          why: `The Content-Signal lines refuse ${conflicts.map((c) => CONFLICT_USE[c.key]).join(', ')}, but robots.txt lets in crawlers whose only documented purpose is that use. Those crawlers are documented to obey robots.txt; none documents honouring Content-Signal, so the page is likely used the way the signals say it must not be.`,
          fix: 'Decide which one states your intent. To refuse the use, disallow the listed crawlers in robots.txt (in the group the signal sits in, or their own groups); to allow it, change the signal to yes or remove it.',
        },
      };
    },
  },
];
