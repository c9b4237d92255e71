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
        <CopyButton text={children} label="Copy" name={`Copy: ${label}`} />
      </div>
      <pre aria-label={label} tabIndex={0}>
        <code>{children}</code>
      </pre>
    </div>
  );
}

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return <CodeBlock label={label}>{JSON.stringify(value, null, 2)}</CodeBlock>;
}
