// parse5 with a ceiling on the tree it builds. The HTML standard makes some markup cost more than its size:
// each formatting element left open (`<b id=1>…<b id=50>`) is reopened inside every following paragraph
// ("reconstruct the active formatting elements"), so 512 KB of `<p>x</p>` after 50 of them build millions of
// elements, and nesting thousands deep makes every tag work against a deep stack. A tree adapter sees each
// node the parser creates and each push onto its stack of open elements; past a limit it stops the parse,
// and the page is read as far as it was built, like a page cut at the byte limit.

import { defaultTreeAdapter, parse, type DefaultTreeAdapterMap, type DefaultTreeAdapterTypes, type TreeAdapter } from 'parse5';

/**
 * Nodes (elements, text runs, comments) one page may build. News-like markup builds one node per 20 bytes or so:
 * 2 MiB of it builds about 106,000 nodes and its tree holds about 40 MB (tests/bench `visibility-page-size`, 3.4
 * times the 512 KiB page), so the limit leaves room for a full 2 MiB page of ordinary markup while stopping
 * markup that builds a node every few bytes.
 */
export const PARSE_MAX_NODES = 200_000;
/** Open elements nested in one another; Chromium's parser nests no deeper either (it flattens past 512). */
export const PARSE_MAX_DEPTH = 512;
/**
 * Formatting elements (`b`, `i`, `a`, `font`…) the parser may reopen: a page whose unclosed formatting
 * elements are recreated this often does nothing but repeat them. Ordinary misnested markup reopens a few
 * per paragraph at most.
 */
export const PARSE_MAX_REOPENED_FORMATTING = 20_000;

/** Which limit stopped the parse. */
type ParseLimit = 'nodes' | 'depth' | 'reopened-formatting';

/** The limit a parse stopped at, with its value (for the finding that explains it). */
export interface ParseLimitHit {
  limit: ParseLimit;
  max: number;
}

export interface BoundedParse {
  document: DefaultTreeAdapterTypes.Document;
  /** Null when the whole page was parsed. */
  limitHit: ParseLimitHit | null;
  /** Nodes built (elements, text runs, comments, template contents), at most PARSE_MAX_NODES. */
  nodes: number;
  /** The deepest the stack of open elements grew, at most PARSE_MAX_DEPTH. */
  maxDepth: number;
  /** Formatting elements reopened, at most PARSE_MAX_REOPENED_FORMATTING. */
  reopened: number;
}

export interface ParseLimits {
  maxNodes: number;
  maxDepth: number;
  maxReopenedFormatting: number;
}

const DEFAULT_LIMITS: ParseLimits = {
  maxNodes: PARSE_MAX_NODES,
  maxDepth: PARSE_MAX_DEPTH,
  maxReopenedFormatting: PARSE_MAX_REOPENED_FORMATTING,
};

// The elements the HTML standard keeps in its list of active formatting elements: only they are reopened.
const FORMATTING: ReadonlySet<string> = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);

/** Thrown from inside the tree adapter to end the parse; never leaves parseBounded. */
class ParseStopped extends Error {
  constructor(readonly hit: ParseLimitHit) {
    super(`parse stopped at ${hit.limit} ${hit.max}`);
  }
}

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/**
 * Parses a document as parse5 does, stopping once it reaches any of `limits`; what was built up to then
 * is returned, a tree like any other.
 * @example
 *   const { document, limitHit } = parseBounded(html);
 *   if (limitHit) facts.truncated = true; // limitHit.limit: 'nodes' | 'depth' | 'reopened-formatting'
 */
export function parseBounded(html: string, limits: ParseLimits = DEFAULT_LIMITS): BoundedParse {
  let document: DefaultTreeAdapterTypes.Document | null = null;
  let nodes = 0;
  let depth = 0;
  let maxDepth = 0;
  let reopened = 0;
  // The parser passes a tag's own attribute list to every element made from that tag: the element itself,
  // and each copy the formatting reconstruction or the adoption agency makes later. A list seen before is
  // therefore a formatting element being reopened.
  const seenAttrs = new WeakSet<object>();

  const built = (count = 1) => {
    nodes += count;
    if (nodes > limits.maxNodes) throw new ParseStopped({ limit: 'nodes', max: limits.maxNodes });
  };
  const childCount = (parent: ParentNode) => parent.childNodes.length;

  const adapter: TreeAdapter<DefaultTreeAdapterMap> = {
    ...defaultTreeAdapter,
    createDocument() {
      document = defaultTreeAdapter.createDocument();
      return document;
    },
    createDocumentFragment() {
      built();
      return defaultTreeAdapter.createDocumentFragment();
    },
    createElement(tagName, namespaceURI, attrs) {
      built();
      if (FORMATTING.has(tagName)) {
        if (!seenAttrs.has(attrs)) seenAttrs.add(attrs);
        else if (++reopened > limits.maxReopenedFormatting) {
          throw new ParseStopped({ limit: 'reopened-formatting', max: limits.maxReopenedFormatting });
        }
      }
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs);
    },
    createCommentNode(data) {
      built();
      return defaultTreeAdapter.createCommentNode(data);
    },
    createTextNode(value) {
      built();
      return defaultTreeAdapter.createTextNode(value);
    },
    // Text joins the text node before it when there is one; a new node is counted only when one is made.
    insertText(parent, text) {
      const before = childCount(parent);
      defaultTreeAdapter.insertText(parent, text);
      if (childCount(parent) > before) built();
    },
    insertTextBefore(parent, text, reference) {
      const before = childCount(parent);
      defaultTreeAdapter.insertTextBefore(parent, text, reference);
      if (childCount(parent) > before) built();
    },
    // Every change to the stack's height comes as one push or one pop (the adoption agency's swap of one
    // element for another comes as a pop and a push), so the count is its height.
    onItemPush(_item: Element) {
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      if (depth > limits.maxDepth) throw new ParseStopped({ limit: 'depth', max: limits.maxDepth });
    },
    onItemPop() {
      depth--;
    },
  };

  let limitHit: ParseLimitHit | null = null;
  try {
    parse(html, { treeAdapter: adapter });
  } catch (error) {
    if (!(error instanceof ParseStopped)) throw error;
    limitHit = error.hit;
  }
  // createDocument is the parser's first call, so a stopped parse has its document too.
  return {
    document: document ?? defaultTreeAdapter.createDocument(),
    limitHit,
    nodes: Math.min(nodes, limits.maxNodes),
    maxDepth: Math.min(maxDepth, limits.maxDepth),
    reopened: Math.min(reopened, limits.maxReopenedFormatting),
  };
}
