'use client';

import { useEffect } from 'react';
import { CopyButton } from '../CopyButton';

/**
 * The exports at the top of every report (a row, or one "Export" menu on a narrow screen): "Download JSON" saves the report exactly as the API returned it,
 * "Copy as Markdown" copies it as text to paste into an issue or a chat, "Print" makes a PDF through the
 * browser's print (the print stylesheet hides the site around the report and opens its folded parts), and
 * "Copy permalink" copies the report's permanent address when it has one. Files are built in the browser from
 * the JSON the page already holds: nothing is fetched again, except "Download HAR" (the report's requests as HAR 1.2,
 * offered on the owner's page of a report that lists them), a link to the route that serves it to the owner.
 */
export function ReportActions({ json, markdown, fileName, permalink, har }: { json: string; markdown: string; fileName: string; permalink?: string; har?: string }) {
  useEffect(() => {
    // Printing from the browser's menu opens the folded parts too; what was open before is restored after.
    let opened: HTMLDetailsElement[] = [];
    const before = () => {
      opened = [...document.querySelectorAll<HTMLDetailsElement>('.report details:not([open])')];
      for (const d of opened) d.open = true;
    };
    const after = () => {
      for (const d of opened) d.open = false;
      opened = [];
    };
    window.addEventListener('beforeprint', before);
    window.addEventListener('afterprint', after);
    return () => {
      window.removeEventListener('beforeprint', before);
      window.removeEventListener('afterprint', after);
    };
  }, []);
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
  const buttons = (
    <>
      <button type="button" className="button secondary" onClick={download}>
        Download JSON
      </button>
      <CopyButton text={markdown} label="Copy as Markdown" />
      <button type="button" className="button secondary" onClick={() => window.print()}>
        Print
      </button>
      {har ? (
        <a className="button secondary" href={har} download>
          Download HAR
        </a>
      ) : null}
      {permalink ? <CopyButton text={permalink} label="Copy permalink" /> : null}
    </>
  );
  // A row of buttons on a wide screen; on a phone, where the row would wrap to three lines above the fixes, one
  // "Export" menu. Both are drawn and the style sheet shows one, so the page needs no script to choose.
  return (
    <>
      <div className="actions report-actions report-actions-row" role="group" aria-label="Export this report">
        {buttons}
      </div>
      <details className="report-actions-menu">
        <summary className="button secondary">Export</summary>
        <div className="actions report-actions" role="group" aria-label="Export this report">
          {buttons}
        </div>
      </details>
    </>
  );
}
