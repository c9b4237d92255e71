'use client';

import { useEffect, useState } from 'react';
import { CopyButton } from '../CopyButton';

/**
 * "Download JSON" saves the report exactly as the API returned it; "Copy as Markdown" copies the same
 * summary an MCP client shows. The download link is built in the browser from the JSON it already holds.
 */
export function ReportActions({ json, markdown, fileName }: { json: string; markdown: string; fileName: string }) {
  const [href, setHref] = useState<string | null>(null);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [json]);
  return (
    <div className="actions report-actions">
      {href ? (
        <a className="button secondary" href={href} download={fileName}>
          Download JSON
        </a>
      ) : (
        <span className="button secondary" aria-disabled="true">
          Download JSON
        </span>
      )}
      <CopyButton text={markdown} label="Copy as Markdown" />
    </div>
  );
}
