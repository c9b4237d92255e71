import { describe, expect, it } from 'vitest';
import { jsonLdProblems } from '@/lib/checks/visibility/jsonld-requirements';

describe('JSON-LD required properties', () => {
  it.each([
    ['Organization without name', { '@type': 'Organization', url: 'https://s.test/' }, [{ type: 'Organization', missing: ['name'] }]],
    ['LocalBusiness checked as Organization', { '@type': 'LocalBusiness', name: '' }, [{ type: 'LocalBusiness', missing: ['name'] }]],
    ['WebSite without url', { '@type': 'WebSite', name: 'Site' }, [{ type: 'WebSite', missing: ['url'] }]],
    ['NewsArticle with a headline only', { '@type': 'NewsArticle', headline: 'H' }, [{ type: 'NewsArticle', missing: ['author', 'datePublished'] }]],
    ['Product with a name only', { '@type': 'schema:Product', name: 'Widget' }, [{ type: 'Product', missing: ['one of offers, review, aggregateRating'] }]],
    ['FAQPage with an unanswered question', { '@type': 'FAQPage', mainEntity: [{ '@type': 'Question', name: 'Q?', acceptedAnswer: { '@type': 'Answer', text: 'A.' } }, { '@type': 'Question', acceptedAnswer: {} }] }, [{ type: 'FAQPage', missing: ['mainEntity[1].name', 'mainEntity[1].acceptedAnswer.text'] }]],
    ['FAQPage without questions', { '@type': 'FAQPage' }, [{ type: 'FAQPage', missing: ['mainEntity'] }]],
    ['BreadcrumbList with one item', { '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home' }] }, [{ type: 'BreadcrumbList', missing: ['itemListElement (at least two ListItems)'] }]],
    ['BreadcrumbList with gaps', { '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', name: 'Home' }, { '@type': 'ListItem', position: 2, item: { '@id': 'https://s.test/b', name: 'B' } }, { '@type': 'ListItem', position: 3 }] }, [{ type: 'BreadcrumbList', missing: ['itemListElement[0].position', 'itemListElement[0].item', 'itemListElement[2].name'] }]],
  ])('%s', (_name, block, expected) => {
    expect(jsonLdProblems([block])).toEqual(expected);
  });

  it('complete entities of all six types have no problems, nested and in @graph alike', () => {
    const block = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Site', url: 'https://s.test/' },
        { '@type': 'Article', headline: 'H', author: { '@type': 'Person', name: 'A' }, datePublished: '2026-11-01', publisher: { '@type': 'Organization', name: 'Site' } },
        { '@type': ['Product', 'Thing'], name: 'W', offers: { '@type': 'Offer', price: '1.00' } },
        { '@type': 'FAQPage', mainEntity: { '@type': 'Question', name: 'Q', acceptedAnswer: { text: 'A' } } },
        { '@type': 'BreadcrumbList', itemListElement: [{ position: 1, name: 'Home', item: 'https://s.test/' }, { position: 2, name: 'Guide' }] },
      ],
    };
    expect(jsonLdProblems([block])).toEqual([]);
  });

  it('merges entities that share an @id before judging them', () => {
    const graph = { '@graph': [{ '@type': 'Organization', '@id': '#org' }, { '@type': 'Organization', '@id': '#org', name: 'Site' }] };
    expect(jsonLdProblems([graph])).toEqual([]);
  });

  it('ignores types it does not check and reports at most 20 problems', () => {
    expect(jsonLdProblems([{ '@type': 'Event' }, { '@type': 'Service' }])).toEqual([]);
    expect(jsonLdProblems([Array.from({ length: 30 }, () => ({ '@type': 'Product' }))])).toHaveLength(20);
  });
});
