'use client';

import { useEffect } from 'react';

// A link to a folded finding (a top fix, a plan step, a category) opens it. Without script the link still
// scrolls to the finding's one-line summary; with it, the fold opens, whether the address's fragment is followed
// on load, on a hash change, or by clicking a link to the fragment the address already has (no hash change).

function openTarget(id: string) {
  const target = id ? document.getElementById(id) : null;
  if (!target) return;
  for (let d = target.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
}

/** Mounted once per report view; renders nothing. */
export function OpenFoldedTarget() {
  useEffect(() => {
    const fromHash = () => openTarget(decodeURIComponent(window.location.hash.slice(1)));
    const onClick = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('.report a[href^="#"]');
      if (link) openTarget(decodeURIComponent(link.getAttribute('href')!.slice(1)));
    };
    fromHash();
    window.addEventListener('hashchange', fromHash);
    document.addEventListener('click', onClick);
    return () => {
      window.removeEventListener('hashchange', fromHash);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return null;
}
