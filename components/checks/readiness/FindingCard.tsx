import { CopyButton } from '@/components/CopyButton';
import { H, type Depth } from './Heading';
import { isVerifyCommand } from '@/lib/checks/readiness/content';
import { capabilityTitle, effortLabel, effortMeaning, evidenceKindLabel, statusLabel } from '@/lib/checks/readiness/labels';
import { FoldedFinding } from '@/components/report-view/parts';
import type { EvidenceItem, Finding } from './types';
import { Prose } from '@/components/report-view/Prose';

// One finding as a payments engineer would write it, folded to its title, severity and fix in one line; open, what
// goes wrong, the fix in order, how to prove it, the sources, the effort, and the evidence the declaration gave,
// as the assessment classified it.

/** A link only to a plain https address (as the Markdown does): a stored body is data, never a script address. */
const isHttps = (url: string) => /^https:\/\/[^\s]+$/.test(url);

export function FindingCard({ finding: f, status, evidence, depth, anchor }: {
  finding: Finding; status?: string; evidence: EvidenceItem[]; depth: Depth; anchor: string;
}) {
  const part = depth;
  const title = f.capability ? capabilityTitle(f.capability) : 'A finding of this assessment';
  return (
    <FoldedFinding
      id={anchor} testId="readiness-finding" title={title} severity={f.severity} pointsLost={f.pointsLost}
      note={status ? `declared ${statusLabel(status).toLowerCase()}` : undefined} fix={f.steps?.[0] ?? f.fix}
    >
      <p className="rd-meta hint">
        {f.effort ? <span title={effortMeaning(f.effort)}>Effort: {effortLabel(f.effort).toLowerCase()}{effortMeaning(f.effort) ? ` (${effortMeaning(f.effort)})` : ''}</span> : null}
        {f.pointsLost ? <span> · {f.pointsLost} point{f.pointsLost === 1 ? '' : 's'} lost</span> : null}
      </p>
      {f.why ? <p><Prose text={f.why} /></p> : null}
      {f.risk ? (
        <p className="rd-risk">
          <strong>What goes wrong:</strong> <Prose text={f.risk} />
        </p>
      ) : null}

      {f.steps?.length ? (
        <>
          <H depth={part}>Steps</H>
          <ol className="rd-list">
            {f.steps.map((s) => (
              <li key={s}><Prose text={s} /></li>
            ))}
          </ol>
        </>
      ) : f.fix ? (
        <p>
          <strong>Fix:</strong> <Prose text={f.fix} />
        </p>
      ) : null}

      {f.verify?.length ? (
        <>
          <H depth={part}>How to verify</H>
          <ul className="rd-verify">
            {f.verify.map((v) => (
              <li key={v.how}>
                {isVerifyCommand(v.how) ? (
                  <div className="rd-command">
                    {/* One line that scrolls inside itself, as a terminal shows it: a command broken mid-word is
                        copied by hand wrongly. Focusable, so a keyboard can scroll it. */}
                    <code tabIndex={0}>{v.how}</code>
                    <CopyButton text={v.how} label="Copy" />
                  </div>
                ) : (
                  <p><Prose text={v.how} /></p>
                )}
                <p className="rd-expect">
                  <strong>Expect:</strong> <Prose text={v.expect} />
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}

      {f.references?.length ? (
        <>
          <H depth={part}>Sources</H>
          <ul className="rd-refs">
            {f.references.map((r) => (
              <li key={r.url}>
                {isHttps(r.url) ? <a href={r.url} rel="noopener noreferrer"><Prose text={r.title} /></a> : <Prose text={r.title} />}
              </li>
            ))}
          </ul>
        </>
      ) : null}

      {evidence.length ? (
        <>
          <H depth={part}>Evidence given</H>
          <ul className="rd-evidence">
            {evidence.map((e, i) => (
              <li key={`${i}-${e.text}`}>
                <span className={`rd-kind ${e.checkable ? 'checkable' : 'unverifiable'}`}>
                  {evidenceKindLabel(e.kind)}
                  {e.checkable ? '' : ', nothing to check'}
                </span>{' '}
                <span className="url">{e.text}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </FoldedFinding>
  );
}
