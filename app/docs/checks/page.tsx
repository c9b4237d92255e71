import type { CheckEntry } from '@/lib/checks/entry';
import { checks } from '@/lib/checks/registry';
import { PRICE_USD } from '@/lib/price';
import { docsPageMetadata } from '@/lib/site/metadata';
import { checkComponents } from '@/components/checks';
import { JsonBlock } from '@/components/CodeBlock';
import { PageContents } from '@/components/docs/PageContents';
import { Prose } from '@/components/report-view/Prose';

export const generateMetadata = () => docsPageMetadata('/docs/checks');

/** A check's published rubric (its entry's `describe()`), laid out by its own component, or as JSON when it has none. */
function Rubric({ check }: { check: CheckEntry }) {
  const described = check.describe();
  const View = checkComponents(check.id)?.Rubric;
  if (View) return <View described={described} />;
  return <JsonBlock value={described} label={`What GET ${check.path} describes`} />;
}

export default function DocsChecks() {
  const all = checks();
  return (
    <>
      <h1>Checks and rubrics</h1>
      <p className="lead">
        Each check scores against a published rubric: the same one its free <code>GET</code> returns, versioned, so a score can be
        traced to the rule that gave it. {PRICE_USD} USD per fulfilled request.
      </p>
      <PageContents entries={[...all.map((c) => ({ anchor: c.id, label: c.service })), { anchor: 'not-seen', label: 'What the checks do not see' }]} />

      {all.map((c) => (
        <section key={c.id} id={c.id} aria-labelledby={`${c.id}-title`}>
          <h2 id={`${c.id}-title`}>{c.service}</h2>
          <p><Prose text={c.description} /></p>
          <p>
            <code>POST {c.path}</code> · MCP tool <code>{c.toolName}</code> · free description <code>GET {c.path}</code>
          </p>
          <h3 id={`${c.id}-rubric`}>Rubric</h3>
          <Rubric check={c} />
        </section>
      ))}

      <h2 id="not-seen">What the checks do not see</h2>
      {all.map((c) => (
        <div key={c.id}>
          <h3 id={`${c.id}-not-seen`}>{c.service}</h3>
          <ul>
            {(c.describe() as { limits?: string[] }).limits?.map((l) => <li key={l}><Prose text={l} /></li>)}
          </ul>
        </div>
      ))}
    </>
  );
}
