'use client';

import { useEffect } from 'react';
import { movedAnchor } from '@/lib/docs/pages';

/**
 * Sends an address of the single-page documentation (`/docs#errors`) on to the page that section is on now. A
 * fragment never reaches the server, so the browser does it, once, replacing the old address in its history.
 * @example <MovedAnchor endpointAnchors={docs.map((d) => d.anchor)} />
 */
export function MovedAnchor({ endpointAnchors }: { endpointAnchors: readonly string[] }) {
  useEffect(() => {
    const target = movedAnchor(decodeURIComponent(window.location.hash.slice(1)), endpointAnchors);
    if (target) window.location.replace(target);
  }, [endpointAnchors]);
  return null;
}
