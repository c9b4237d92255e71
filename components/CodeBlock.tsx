import { CopyButton } from './CopyButton';

/**
 * A block of code that scrolls inside itself, with a button that copies it whole.
 * @example <CodeBlock label="Set BASE">{'export BASE=https://checks.example'}</CodeBlock>
 */
export function CodeBlock({ children, label }: { children: string; label: string }) {
  return (
    <div className="code-block">
      <div className="code-bar">
        <span className="code-label" aria-hidden="true">{label}</span>
        <CopyButton label="Copy" name={`Copy: ${label}`} />
      </div>
      <pre aria-label={label} tabIndex={0}>
        <code>{children}</code>
      </pre>
    </div>
  );
}

/**
 * `value` as indented JSON in a CodeBlock; `indent` 1 for the largest (a JSON Schema), where every space of
 * indentation is sent twice, in the page and in its React payload.
 * @example <JsonBlock value={{ ok: true }} label="Answer" />
 */
export function JsonBlock({ value, label, indent = 2 }: { value: unknown; label: string; indent?: number }) {
  return <CodeBlock label={label}>{JSON.stringify(value, null, indent)}</CodeBlock>;
}
