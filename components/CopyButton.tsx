'use client';

import { useState, type MouseEvent } from 'react';

/**
 * Copies `text`, or without it the `pre` of the `.code-block` the button sits in (so a long block is sent to the
 * browser once, as the page's text, not again as this button's prop); says so in a live region, so screen-reader
 * users hear the result too. `name` is the button's accessible name when the visible `label` alone would not say
 * what it copies.
 * @example <CopyButton text={key} label="Copy key" />
 */
export function CopyButton({ text, label = 'Copy', name }: { text?: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy(event: MouseEvent<HTMLButtonElement>) {
    try {
      const copied = text ?? event.currentTarget.closest('.code-block')?.querySelector('pre')?.textContent;
      if (copied == null) throw new Error('nothing to copy');
      await navigator.clipboard.writeText(copied);
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
