import type { EndpointDoc } from '@/lib/docs/reference';
import { PROBLEMS } from '@/lib/problems';
import { JsonBlock } from '../CodeBlock';
import { Wrappable } from './Wrappable';

/**
 * One endpoint of the REST reference, on its own page: what it takes, example answers and its errors. Its JSON
 * Schemas are a page apart (EndpointSchemas), the largest of them being bigger than all the rest.
 * @example <EndpointSection doc={doc} />
 */
export function EndpointSection({ doc }: { doc: EndpointDoc }) {
  return (
    <section className="endpoint" id={doc.anchor} aria-labelledby={`${doc.anchor}-title`}>
      <h3 id={`${doc.anchor}-title`}>
        <code>
          {doc.method} <Wrappable text={doc.path} />
        </code>{' '}
        {doc.title}
      </h3>
      <p>
        <Wrappable text={doc.summary} />
      </p>
      <dl className="facts">
        <dt>Price</dt>
        <dd>
          <Wrappable text={doc.price} />
        </dd>
        <dt>Authentication</dt>
        <dd>
          <Wrappable text={doc.auth} />
        </dd>
        {doc.requestContentType ? (
          <>
            <dt>Request body</dt>
            <dd>{doc.requestContentType}</dd>
          </>
        ) : null}
        {doc.requestHeaders ? (
          <>
            <dt>Headers</dt>
            <dd>
              {doc.requestHeaders.map((h) => (
                <div key={h}>
                  <code>
                    <Wrappable text={h} />
                  </code>
                </div>
              ))}
            </dd>
          </>
        ) : null}
      </dl>
      {doc.requestBody !== undefined ? (
        <>
          <h4>Example request</h4>
          <JsonBlock value={doc.requestBody} label={`Example request for ${doc.method} ${doc.path}`} />
        </>
      ) : null}
      {doc.responses.map((r, i) => (
        <div key={i}>
          <h4>
            Response {r.status}: <span className="muted">
              <Wrappable text={r.description} />
            </span>
          </h4>
          {r.headers ? <JsonBlock value={r.headers} label={`Response ${r.status} headers`} /> : null}
          {r.body !== undefined ? <JsonBlock value={r.body} label={`Response ${r.status} body`} /> : null}
        </div>
      ))}
      {doc.inputSchema !== undefined || doc.outputSchema !== undefined ? (
        <p>
          <a href={`/docs/api/${doc.anchor}/schemas`}>Its JSON Schemas</a> (request and response), on a page of their own.
        </p>
      ) : null}
      {doc.errors.length ? (
        <>
          <h4>Errors</h4>
          <ul>
            {doc.errors.map((kind) => (
              <li key={kind}>
                {PROBLEMS[kind].status} <a href={`/docs/api#problem-${kind}`}>{kind}</a>: {PROBLEMS[kind].title}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

/**
 * An endpoint's request and response JSON Schemas, folded.
 * @example <EndpointSchemas doc={doc} />
 */
export function EndpointSchemas({ doc }: { doc: EndpointDoc }) {
  return (
    <>
      {doc.inputSchema !== undefined ? (
        <details>
          <summary>Request JSON Schema</summary>
          <JsonBlock value={doc.inputSchema} label={`Request schema for ${doc.path}`} indent={1} />
        </details>
      ) : null}
      {doc.outputSchema !== undefined ? (
        <details>
          <summary>Response 200 JSON Schema</summary>
          <JsonBlock value={doc.outputSchema} label={`Response schema for ${doc.path}`} indent={1} />
        </details>
      ) : null}
    </>
  );
}
