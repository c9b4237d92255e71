import { scoreBand } from '@/lib/checks/entry';

// A half-ring gauge drawn with SVG attributes only (the CSP allows no inline style to be relied on).
// The number is text, so it reads the same to a screen reader and in print.

const R = 52;
const HALF = Math.PI * R;

export function ScoreGauge({ score, max, label }: { score: number; max: number; label: string }) {
  const share = max > 0 ? Math.min(1, Math.max(0, score / max)) : 0;
  return (
    <figure className={`gauge ${scoreBand(score, max)}`}>
      <svg viewBox="0 0 128 72" role="img" aria-label={`${label}: ${score} out of ${max}`}>
        <path className="gauge-track" d="M 12 64 A 52 52 0 0 1 116 64" fill="none" strokeWidth="12" strokeLinecap="round" />
        <path
          className="gauge-value" d="M 12 64 A 52 52 0 0 1 116 64" fill="none" strokeWidth="12" strokeLinecap="round"
          strokeDasharray={`${(share * HALF).toFixed(2)} ${HALF.toFixed(2)}`}
        />
      </svg>
      <figcaption>
        <span className="gauge-score" data-testid="report-score">{score}</span>
        <span className="gauge-max"> / {max}</span>
      </figcaption>
    </figure>
  );
}
