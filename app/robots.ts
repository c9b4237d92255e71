import type { MetadataRoute } from 'next';
import { publicOrigin } from '@/lib/site/metadata';

// Every crawler, search and AI alike, may read the public pages; the API (agents call it, crawlers gain
// nothing from it), the purchase pages and everything behind a sign-in stay out.
export const dynamic = 'force-dynamic';

export default function robots(): MetadataRoute.Robots {
  return {
    rules: [{ userAgent: '*', allow: '/', disallow: ['/api/', '/account', '/reports/', '/purchase/'] }],
    sitemap: `${publicOrigin()}/sitemap.xml`,
  };
}
