import type { Metadata } from 'next';
import { getConfig, supportEmail } from '@/lib/config';
import { PLANS } from '@/lib/credits/plans';
import { formatUsd, PRICE_USD } from '@/lib/price';
import { DOCS_PAGES } from '@/lib/docs/pages';
import { checkServicesInWords } from '@/lib/checks/registry';

// What search engines and AI crawlers read about each page: its canonical address, the Open Graph and
// Twitter cards and the structured data. Every address is absolute and built from APP_URL, the public
// origin, so a page reached through another name or a proxy still names its one public address.

export const SITE_NAME = 'Paid Agent Checks';
export const SITE_DESCRIPTION = `${checkServicesInWords({ articles: false })}: ${PRICE_USD} USD per check, paid over HTTP 402 or with prepaid credits.`;

/** The generated social card (app/opengraph-image.tsx), relative to metadataBase. */
const OG_IMAGE = { url: '/opengraph-image', width: 1200, height: 630, alt: 'Paid Agent Checks: Agent Payment Readiness, AI Visibility and Payment Endpoint, per fulfilled check' };

/** The public origin, without a trailing slash. */
export function publicOrigin(): string {
  return getConfig().APP_URL.replace(/\/$/, '');
}

/**
 * A page's metadata: title, description, canonical address and the social cards (whose image is the
 * generated app/opengraph-image). `index: false` keeps a private page (account, a stored report) out of
 * search results and the sitemap.
 * @example export const generateMetadata = () => pageMetadata({ path: '/pricing', title: 'Pricing', description: '…' });
 */
export function pageMetadata({
  path,
  title,
  description,
  index = true,
  absoluteTitle = false,
}: {
  path: string;
  title: string;
  description: string;
  index?: boolean;
  /** The title as given, without the site name appended (the home page, whose title already names it). */
  absoluteTitle?: boolean;
}): Metadata {
  const url = `${publicOrigin()}${path}`;
  return {
    title: absoluteTitle ? { absolute: title } : title,
    description,
    alternates: { canonical: url },
    // The image is named here, not left to app/opengraph-image alone: Next gives a page the file's image
    // only when the page sets no openGraph of its own, and every page sets its own.
    openGraph: { type: 'website', siteName: SITE_NAME, title, description, url, locale: 'en_US', images: [OG_IMAGE] },
    twitter: { card: 'summary_large_image', title, description, images: [OG_IMAGE] },
    ...(index ? {} : { robots: { index: false, follow: false } }),
  };
}

/**
 * A documentation page's metadata, from its entry in the docs' page list (lib/docs/pages.ts).
 * @example export const generateMetadata = () => docsPageMetadata('/docs/api');
 */
export function docsPageMetadata(path: string): Metadata {
  const page = DOCS_PAGES.find((p) => p.path === path);
  if (!page) throw new Error(`${path} is not in DOCS_PAGES`);
  return pageMetadata({ path, title: page.title, description: page.description });
}

/** The pages a search engine should know about, in sitemap order. */
export const PUBLIC_PAGES: ReadonlyArray<{ path: string; priority: number }> = [
  { path: '/', priority: 1 },
  { path: '/pricing', priority: 0.9 },
  { path: '/check', priority: 0.8 },
  ...DOCS_PAGES.map((p) => ({ path: p.path, priority: p.path === '/docs' ? 0.8 : 0.7 })),
  { path: '/contact', priority: 0.4 },
  { path: '/terms', priority: 0.3 },
  { path: '/privacy', priority: 0.3 },
  { path: '/refunds', priority: 0.3 },
];

/**
 * The site's schema.org graph: who publishes it, the site, and the service with each prepaid plan and the
 * per-call price as Offers.
 * @example siteJsonLd()['@graph'].map((n) => n['@type']) // ['Organization', 'WebSite', 'Service']
 */
export function siteJsonLd() {
  const origin = publicOrigin();
  const org = `${origin}/#organization`;
  return {
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'Organization', '@id': org, name: SITE_NAME, url: `${origin}/`, logo: `${origin}/icon.svg`, email: supportEmail(getConfig()) },
      { '@type': 'WebSite', '@id': `${origin}/#website`, name: SITE_NAME, url: `${origin}/`, publisher: { '@id': org }, inLanguage: 'en' },
      {
        '@type': 'Service',
        '@id': `${origin}/#service`,
        name: checkServicesInWords({ articles: false }),
        description: SITE_DESCRIPTION,
        provider: { '@id': org },
        url: `${origin}/pricing`,
        offers: [
          { '@type': 'Offer', name: 'One check, paid per call', price: PRICE_USD, priceCurrency: 'USD', url: `${origin}/docs#quick-start` },
          ...PLANS.map((plan) => ({
            '@type': 'Offer',
            name: plan.name,
            description: plan.description,
            price: formatUsd(plan.priceCents),
            priceCurrency: 'USD',
            url: `${origin}/pricing#${plan.id}`,
          })),
        ],
      },
    ],
  };
}
