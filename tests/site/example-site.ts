// The fixture site behind the home page's example visibility report: a small shop at shop.example (a
// reserved name that can never be a real site) with the mix a real one often has: a good page without a meta
// description, robots.txt shutting out two AI crawlers, a sitemap, no llms.txt, an incomplete Open Graph card.
import type { FixtureRoute } from '../visibility/fixture-site';
import { httpsOnly, text, xml } from '../visibility/fixture-pages';

export const EXAMPLE_HOST = 'shop.example';
export const EXAMPLE_URL = `https://${EXAMPLE_HOST}/teapots`;

const PARAGRAPHS = [
  'Our cast iron teapots are made in small batches by one foundry in Morioka, where the craft has been handed down for four centuries. Each pot is cast in a sand mould that is used once and broken, so no two pots are quite alike.',
  'The inside is enamelled, which keeps the water from tasting of iron and makes the pot easy to clean: rinse it with hot water after use, never with soap, and let it dry with the lid off. The outside is finished with lacquer and needs nothing more than a soft cloth.',
  'Iron holds heat for a long time, so a pot warmed with hot water before brewing keeps the tea at the right temperature for a second and a third cup. The stainless steel infuser lifts out, so green tea need not stew while you drink the first cup.',
  'Sizes run from a 0.4 litre pot for one person to a 1.2 litre pot for a table of four. Every pot ships with a trivet, a spare infuser and a care card, and is covered by our ten year guarantee against cracks and enamel faults.',
  'Orders placed before two in the afternoon leave the same day. Delivery inside the country is free over fifty euros, and returns are free for thirty days as long as the pot has not been used on a stove.',
  'Not sure which size to pick? A 0.6 litre pot makes two generous cups, which suits most people who drink tea on their own or with one other person. Our guide to brewing explains water temperature and steeping times for green, black and oolong teas.',
];

function page(url: string): string {
  const jsonLd = JSON.stringify({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'Organization', name: 'Example Teapot Shop', url: 'https://shop.example/' },
      { '@type': 'Product', name: 'Cast iron teapot', offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'EUR' } },
    ],
  });
  return `<!doctype html><html lang="en"><head>
<meta charset="utf-8"><title>Cast iron teapots, made in Morioka | Example Teapot Shop</title>
<link rel="canonical" href="${url}">
<meta property="og:title" content="Cast iron teapots">
<script type="application/ld+json">${jsonLd}</script>
</head><body><header><a href="/">Example Teapot Shop</a></header>
<main><h1>Cast iron teapots</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}</main></body></html>`;
}

const ROBOTS = [
  'User-agent: *',
  'Disallow: /cart',
  'Disallow: /checkout',
  '',
  'User-agent: GPTBot',
  'User-agent: CCBot',
  'Disallow: /',
  '',
  `Sitemap: https://${EXAMPLE_HOST}/sitemap.xml`,
  '',
].join('\n');

export function exampleRoutes(): Record<string, FixtureRoute> {
  return {
    '/teapots': httpsOnly({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: page(EXAMPLE_URL) }),
    '/': httpsOnly({ redirect: '/teapots', status: 301 }),
    '/robots.txt': text(ROBOTS),
    '/sitemap.xml': xml(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${EXAMPLE_URL}</loc></url></urlset>`),
  };
}
