import type { Metadata } from 'next';
import { endpointDocs, type EndpointDoc } from '@/lib/docs/reference';
import { pageMetadata } from '@/lib/site/metadata';

// The REST reference is one page per endpoint (and its schemas one more), so no page carries every example and
// schema at once: together they were megabytes of HTML.

/**
 * The endpoint whose anchor is `anchor`, documented for the deployment at `appUrl`; undefined for none.
 * @example const doc = await endpointDoc('https://checks.example', 'agentCredits');
 */
export async function endpointDoc(appUrl: string, anchor: string): Promise<EndpointDoc | undefined> {
  return (await endpointDocs(appUrl.replace(/\/$/, ''))).find((d) => d.anchor === anchor);
}

/**
 * The metadata of an endpoint's page (`part` 'schemas': of its schemas' page).
 * @example export const generateMetadata = async ({ params }) => endpointPageMetadata(doc, 'page');
 */
export function endpointPageMetadata(doc: EndpointDoc | undefined, part: 'page' | 'schemas'): Metadata {
  if (!doc) return { title: 'Not found', robots: { index: false, follow: false } };
  const route = `${doc.method} ${doc.path.split('?')[0]}`;
  return pageMetadata({
    path: `/docs/api/${doc.anchor}${part === 'schemas' ? '/schemas' : ''}`,
    title: part === 'schemas' ? `${route}: JSON Schemas` : `${route}: ${doc.title}`,
    description: part === 'schemas' ? `The request and response JSON Schemas of ${route}.` : doc.summary.slice(0, 200),
  });
}
