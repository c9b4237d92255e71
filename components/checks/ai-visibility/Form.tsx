'use client';

import { useState, type FormEvent } from 'react';
import { MAX_ADDRESS_LENGTH } from '@/lib/checks/visibility/published';
import type { CheckFormProps } from '../types';

// The visibility request as a form: one address. The API is the judge of an address (it adds https:// to a
// bare `shop.example.com/path`, refuses internal names, IP literals and odd ports, and its 400 is shown under
// the field), so the form refuses only what no address can be: nothing, or more than the API reads.

/**
 * What is wrong with a typed address before it is sent, in words; null when it goes to the API as it is.
 * @example validateAddress('shop.example.com/pricing') // null: the API checks it over https
 */
export function validateAddress(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed) return 'Required: enter the address of a page.';
  if (trimmed.length > MAX_ADDRESS_LENGTH) return `Too long: at most ${MAX_ADDRESS_LENGTH} characters (now ${trimmed.length}).`;
  return null;
}

export function VisibilityForm({ busy, serverErrors, onSubmit }: CheckFormProps) {
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The form has one field: every message of the server's 400 belongs to it.
  const shown = error ?? serverErrors[0]?.message ?? null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validateAddress(url);
    setError(found);
    if (!found) onSubmit({ url: url.trim() });
  }

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="visibility-form-title">
      <h2 id="visibility-form-title">AI Visibility Check</h2>
      <p className="muted">
        We fetch the page and its site files (robots.txt, sitemap, llms.txt), report what 16 search and AI crawlers may read, and score
        the page against the <a href="/docs/checks#ai-visibility-rubric">published rubric</a>, with a fix for every point lost. A page that cannot
        be fetched is not charged.
      </p>
      <div>
        <label htmlFor="visibility-url">Page address</label>
        <input
          id="visibility-url" name="url" type="text" inputMode="url" autoComplete="url" autoCapitalize="none" spellCheck={false}
          placeholder="example.com/pricing" value={url} onChange={(e) => setUrl(e.target.value)}
          aria-invalid={shown ? true : undefined} aria-describedby={shown ? 'visibility-url-error' : 'visibility-url-hint'}
        />
        {shown ? (
          <p id="visibility-url-error" className="field-error">
            {shown}
          </p>
        ) : (
          <p id="visibility-url-hint" className="hint">
            An address without a scheme is checked over https://.
          </p>
        )}
      </div>
      <div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Checking… (up to 20 seconds)' : 'Run the check (1 call)'}
        </button>
      </div>
    </form>
  );
}
