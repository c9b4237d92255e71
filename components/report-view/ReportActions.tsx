'use client';

import { CopyButton } from '../CopyButton';

/**
 * "Download JSON" saves the report exactly as the API returned it; "Copy as Markdown" copies the same
 * report as text to paste into an issue or a chat. The file is built in the browser from the JSON the
 * page already holds: nothing is fetched again.
 */
export function ReportActions({ json, markdown, fileName }: { json: string; markdown: string; fileName: string }) {
  function download() {
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
    // After the click has handed the file to the browser's download.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
  return (
    <div className="actions report-actions">
      <button type="button" className="button secondary" onClick={download}>
        Download JSON
      </button>
      <CopyButton text={markdown} label="Copy as Markdown" />
    </div>
  );
}
