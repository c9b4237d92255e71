// The properties a JSON-LD entity of six common types needs before search engines can use it, checked
// on the parsed blocks of the page (page.jsonLd.problems, finding jsonld-incomplete).
//
// The table follows Google Search Central's structured-data pages (read 2026-11):
//   Product (product snippets)      required: name, and one of offers, review, aggregateRating
//   BreadcrumbList (breadcrumb)     required: itemListElement with at least two ListItems, each with
//                                   position, name and item (item may be left out on the last one)
//   FAQPage (faqpage)               required: mainEntity, each Question with name and acceptedAnswer.text
//   WebSite (site names)            required: name and url
//   Article (article)               Google requires nothing and recommends headline, author, datePublished,
//                                   dateModified and image; we ask for headline, author and datePublished,
//                                   what an answer needs to title, attribute and date a citation
//   Organization (organization)     Google requires nothing and recommends name, url, logo, sameAs …; we ask
//                                   for name, without which the entity identifies nobody
// Google no longer shows FAQ rich results, but the markup still describes the page; it is checked, not
// rewarded differently.
// Sources (Google Search Central, developers.google.com/search/docs/appearance/): structured-data/product-snippet,
// structured-data/breadcrumb, structured-data/faqpage, site-names, structured-data/article,
// structured-data/organization.

/** `page.jsonLd.problems[i]`. */
export interface JsonLdProblem {
  /** The @type as written on the entity (NewsArticle, not Article), without a schema.org prefix. */
  type: string;
  /** What is missing, by property path (`mainEntity[0].acceptedAnswer.text`, `one of offers, review, aggregateRating`). */
  missing: string[];
}

/** At most this many problems are reported; a catalogue of 500 incomplete products says nothing more. */
export const JSONLD_PROBLEMS_MAX = 20;

type Entity = Record<string, unknown>;
type Checked = 'Organization' | 'WebSite' | 'Article' | 'Product' | 'FAQPage' | 'BreadcrumbList';

// Subtypes checked as their parent type (the same families extract.ts counts as key types).
const CHECKED_TYPE_OF: ReadonlyMap<string, Checked> = new Map<string, Checked>([
  ...(['Organization', 'Corporation', 'LocalBusiness', 'NGO', 'EducationalOrganization', 'GovernmentOrganization', 'NewsMediaOrganization', 'OnlineBusiness', 'OnlineStore', 'MedicalOrganization', 'SportsOrganization', 'Store', 'Restaurant', 'ProfessionalService'] as const).map((t) => [t, 'Organization'] as const),
  ['WebSite', 'WebSite'],
  ...(['Article', 'NewsArticle', 'BlogPosting', 'TechArticle', 'ScholarlyArticle', 'Report', 'AnalysisNewsArticle', 'ReportageNewsArticle', 'OpinionNewsArticle', 'SocialMediaPosting', 'LiveBlogPosting'] as const).map((t) => [t, 'Article'] as const),
  ...(['Product', 'ProductGroup', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'Vehicle', 'Car'] as const).map((t) => [t, 'Product'] as const),
  ['FAQPage', 'FAQPage'],
  ['BreadcrumbList', 'BreadcrumbList'],
]);

function stripPrefix(t: string): string {
  return t.trim().replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, '');
}

function typesOf(e: Entity): string[] {
  const t = e['@type'];
  if (typeof t === 'string') return [stripPrefix(t)];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string').map(stripPrefix);
  return [];
}

/** A property is present when it holds something other than null, an empty string or an empty list. */
function present(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.some(present);
  return true;
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
}

function asEntity(v: unknown): Entity | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Entity) : null;
}

function missingOf(type: Checked, e: Entity): string[] {
  const missing: string[] = [];
  const need = (prop: string) => {
    if (!present(e[prop])) missing.push(prop);
  };
  switch (type) {
    case 'Organization':
      need('name');
      break;
    case 'WebSite':
      need('name');
      need('url');
      break;
    case 'Article':
      need('headline');
      need('author');
      need('datePublished');
      break;
    case 'Product':
      need('name');
      if (!present(e.offers) && !present(e.review) && !present(e.aggregateRating)) missing.push('one of offers, review, aggregateRating');
      break;
    case 'FAQPage': {
      const questions = asList(e.mainEntity);
      if (!present(e.mainEntity)) {
        missing.push('mainEntity');
        break;
      }
      questions.forEach((q, i) => {
        const question = asEntity(q);
        if (question === null) return;
        if (!present(question.name)) missing.push(`mainEntity[${i}].name`);
        const answers = asList(question.acceptedAnswer).map(asEntity);
        if (!answers.some((a) => a !== null && present(a.text))) missing.push(`mainEntity[${i}].acceptedAnswer.text`);
      });
      break;
    }
    case 'BreadcrumbList': {
      const items = asList(e.itemListElement);
      if (items.length < 2) {
        missing.push(items.length === 0 ? 'itemListElement' : 'itemListElement (at least two ListItems)');
      }
      items.forEach((it, i) => {
        const item = asEntity(it);
        if (item === null) return;
        if (!present(item.position)) missing.push(`itemListElement[${i}].position`);
        // The older form puts the name on the linked item: { item: { "@id": …, "name": … } }.
        const linked = asEntity(item.item);
        if (!present(item.name) && !(linked && present(linked.name))) missing.push(`itemListElement[${i}].name`);
        if (i < items.length - 1 && !present(item.item)) missing.push(`itemListElement[${i}].item`);
      });
      break;
    }
  }
  return missing;
}

/**
 * Every entity of the six checked types in the parsed JSON-LD blocks (top level, arrays, @graph and
 * nested values alike), with the properties it lacks. Entities sharing an @id are merged first, since a
 * graph often states a node once in full and refers to it elsewhere. Iterative, one visit per node.
 * @example jsonLdProblems([{ '@type': 'Product', name: 'Widget' }]) // [{ type: 'Product', missing: ['one of offers, review, aggregateRating'] }]
 */
export function jsonLdProblems(blocks: readonly unknown[]): JsonLdProblem[] {
  const entities: Entity[] = [];
  const byId = new Map<string, Entity>();
  const stack: unknown[] = [...blocks].reverse();
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
      continue;
    }
    const obj = v as Entity;
    if (typesOf(obj).some((t) => CHECKED_TYPE_OF.has(t))) {
      const id = typeof obj['@id'] === 'string' ? obj['@id'] : null;
      const known = id === null ? undefined : byId.get(id);
      if (known) Object.assign(known, obj);
      else {
        const copy = { ...obj };
        entities.push(copy);
        if (id !== null) byId.set(id, copy);
      }
    }
    const children: unknown[] = [];
    for (const k in obj) {
      const x = obj[k];
      if (x !== null && typeof x === 'object') children.push(x);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }

  const problems: JsonLdProblem[] = [];
  for (const e of entities) {
    for (const written of typesOf(e)) {
      const checked = CHECKED_TYPE_OF.get(written);
      if (checked === undefined) continue;
      const missing = missingOf(checked, e);
      if (missing.length > 0) problems.push({ type: written, missing });
      if (problems.length >= JSONLD_PROBLEMS_MAX) return problems;
      break;
    }
  }
  return problems;
}
