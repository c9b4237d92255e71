// Structured data: JSON-LD and Open Graph, the machine-readable description of the page.

import type { RubricItem } from './types';

/**
 * The structured-data items, in published order.
 * @example STRUCTURED_DATA_ITEMS.map((item) => item.id) // ['sd.jsonld', 'sd.key-types', 'sd.complete', 'social.og']
 */
export const STRUCTURED_DATA_ITEMS: readonly RubricItem[] = [
  {
    id: 'sd.jsonld',
    category: 'structured data',
    points: 4,
    criterion:
      'At least one JSON-LD block and none that fails to parse (some invalid, some valid: 2 points).',
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
        earned: invalid < blocks ? 2 : 0,
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
    points: 3,
    criterion:
      'JSON-LD names the publisher (Organization or WebSite: 1 point) and the content (Article, Product, Service or FAQPage, subtypes included: 2 points).',
    evaluate(input, points) {
      const keys = input.page.jsonLd.keyTypes;
      const identity = keys.includes('Organization') || keys.includes('WebSite');
      const content = keys.includes('Article') || keys.includes('Product') || keys.includes('Service') || keys.includes('FAQPage');
      const earned = (identity ? 1 : 0) + (content ? 2 : 0);
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
    id: 'sd.complete',
    category: 'structured data',
    points: 3,
    criterion:
      'Every Organization, WebSite, Article, Product, FAQPage and BreadcrumbList entity in the JSON-LD has the properties search engines need for it (Product: name and one of offers, review, aggregateRating; WebSite: name, url; Article: headline, author, datePublished; Organization: name; FAQPage: questions with name and accepted answer text; BreadcrumbList: two or more items with position, name and item). Nothing to check: full points.',
    evaluate(input, points) {
      const problems = input.page.jsonLd.problems;
      if (problems.length === 0) return { earned: points };
      return {
        earned: 0,
        finding: {
          id: 'jsonld-incomplete',
          severity: 'low',
          observed: problems.map((p) => `${p.type} without ${p.missing.join(', ')}`).join('; '),
          why: 'An entity missing the properties Google\'s structured-data documentation requires (or, for Article and Organization, recommends as the basics) is not eligible for rich results and tells AI systems less about who published what, and when.',
          fix: `Add the missing properties to the JSON-LD: ${problems.map((p) => `${p.type}: ${p.missing.join(', ')}`).join('; ')}. Use values that match what the page visibly shows, and check the result with Google's Rich Results Test.`,
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
