export function CodeBlock({ children, label }: { children: string; label?: string }) {
  return (
    <pre aria-label={label} tabIndex={0}>
      <code>{children}</code>
    </pre>
  );
}

export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return <CodeBlock label={label}>{JSON.stringify(value, null, 2)}</CodeBlock>;
}
