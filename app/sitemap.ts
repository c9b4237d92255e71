import type { MetadataRoute } from 'next';
import { PUBLIC_PAGES, publicOrigin } from '@/lib/site/metadata';

// Addresses come from APP_URL, known only at run time.
export const dynamic = 'force-dynamic';

export default function sitemap(): MetadataRoute.Sitemap {
  const origin = publicOrigin();
  return PUBLIC_PAGES.map(({ path, priority }) => ({ url: `${origin}${path === '/' ? '/' : path}`, changeFrequency: 'weekly', priority }));
}
