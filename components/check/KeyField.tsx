import type { ReactNode } from 'react';

/**
 * A credits-key field: a password input (never autocompleted or spell-checked, so the key stays out of the
 * browser's stores), its label with a hint, and its error, tied to the input for screen readers.
 * @example <KeyField id="signin-key" label="Credits key" hint="(starts with pac_live_)" value={key} onChange={setKey} error={error} />
 */
export function KeyField({ id, label, hint, value, onChange, error }: { id: string; label: string; hint: ReactNode; value: string; onChange: (value: string) => void; error: string | null }) {
  const errorId = `${id}-error`;
  return (
    <div>
      <label htmlFor={id}>
        {label} <span className="hint">{hint}</span>
      </label>
      <input
        id={id} name="key" type="password" autoComplete="off" spellCheck={false} value={value}
        onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined}
      />
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
