// Structured data: JSON-LD and Open Graph, the machine-readable description of the page.

import type { RubricItem } from './types';

/**
 * The structured-data items, in published order.
 * @example STRUCTURED_DATA_ITEMS.map((item) => item.id) // ['sd.jsonld', 'sd.key-types', 'social.og']
 */
export const STRUCTURED_DATA_ITEMS: readonly RubricItem[] = [
  {
    id: 'sd.jsonld',
    category: 'structured data',
    points: 6,
    criterion:
      'At least one JSON-LD block and none that fails to parse (some invalid, some valid: 3 points).',
    evaluate(input, points) {
      const { blocks, invalid } = input.page.jsonLd;
      if (blocks === 0) {
        return {
          earned: 0,
          finding: {
            id: 'jsonld-missing',
            severity: 'medium',
            observed: 'no <script type="application/ld+json"> block',
            why: 'JSON-LD states in machine-readable form who publishes the page and what it is (article, product, service), which search engines and AI systems use to understand and attribute it.',
            fix: 'Add a <script type="application/ld+json"> block describing the page with schema.org types that match its visible content.',
          },
        };
      }
      if (invalid === 0) return { earned: points };
      return {
        earned: invalid < blocks ? 3 : 0,
        finding: {
          id: 'jsonld-invalid',
          severity: 'medium',
          observed: `${invalid} of ${blocks} JSON-LD blocks are not valid JSON objects`,
          why: 'A JSON-LD block that does not parse is ignored entirely.',
          fix: 'Fix the JSON syntax of the broken block(s) (trailing commas, unescaped quotes, HTML comments inside the script) and validate them with a JSON-LD or rich-results validator.',
        },
      };
    },
  },
  {
    id: 'sd.key-types',
    category: 'structured data',
    points: 4,
    criterion:
      'JSON-LD names the publisher (Organization or WebSite: 2 points) and the content (Article, Product, Service or FAQPage, subtypes included: 2 points).',
    evaluate(input, points) {
      const keys = input.page.jsonLd.keyTypes;
      const identity = keys.includes('Organization') || keys.includes('WebSite');
      const content = keys.includes('Article') || keys.includes('Product') || keys.includes('Service') || keys.includes('FAQPage');
      const earned = (identity ? 2 : 0) + (content ? 2 : 0);
      if (earned === points) return { earned };
      const missing = [!identity ? 'the publisher (Organization or WebSite)' : null, !content ? 'the content (Article, Product, Service or FAQPage)' : null].filter(Boolean);
      return {
        earned,
        finding: {
          id: 'jsonld-key-types',
          severity: 'low',
          observed: input.page.jsonLd.types.length > 0 ? `JSON-LD types: ${input.page.jsonLd.types.join(', ')}` : 'no JSON-LD types',
          why: 'Structured data that names the publisher and the kind of content helps crawlers attribute the page and present it correctly; it is not a ranking factor by itself.',
          fix: `Describe ${missing.join(' and ')} in JSON-LD, using the type that matches what the page visibly is.`,
        },
      };
    },
  },
  {
    id: 'social.og',
    category: 'structured data',
    points: 2,
    criterion:
      'og:title, og:description and og:image are all present (one or two of them: 1 point).',
    evaluate(input, points) {
      const og = input.page.openGraph;
      const required: Array<[string, boolean]> = [['og:title', og.title], ['og:description', og.description], ['og:image', og.image]];
      const present = required.filter(([, p]) => p).length;
      if (present === 3) return { earned: points };
      const missing = required.filter(([, p]) => !p).map(([n]) => n);
      return {
        earned: present > 0 ? 1 : 0,
        finding: {
          id: 'open-graph-incomplete',
          severity: 'low',
          observed: `missing ${missing.join(', ')}`,
          why: 'Open Graph tags decide how the page looks when it is shared or previewed by chat assistants and social apps.',
          fix: `Add ${missing.map((m) => `<meta property="${m}" content="...">`).join(', ')} to the <head>${og.url ? '' : ', and og:url with the canonical address'}.`,
        },
      };
    },
  },];
