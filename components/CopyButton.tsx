'use client';

import { useState } from 'react';

/**
 * Copies `text`; says so in a live region, so screen-reader users hear the result too. `name` is the button's
 * accessible name when the visible `label` alone would not say what it copies.
 * @example <CopyButton text={key} label="Copy key" />
 */
export function CopyButton({ text, label = 'Copy', name }: { text: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      <button type="button" className="button secondary" onClick={copy} aria-label={name}>
        {label}
      </button>
      <span role="status" aria-live="polite" className="hint">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it by hand.' : ''}
      </span>
    </>
  );
}
