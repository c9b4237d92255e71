// The one hand-written XML reader of the visibility check, for the small documents it reads with a byte cap
// (sitemaps, RSL licences). A full XML parser would resolve entities and build a tree; these documents need
// neither, and a forward scan keeps a hostile file's cost to its length.

/** One tag of a document: its name (without prefix, lowercased) as `name`, as written as `qualified`. */
export interface XmlTag {
  qualified: string;
  name: string;
  attrs: Record<string, string>;
  close: boolean;
  selfClose: boolean;
  /** Where the text after the tag starts. */
  end: number;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes the XML predefined and numeric character references of a text node or attribute value.
 * @example decodeXmlText('a&amp;b&#x41;') // 'a&bA'
 */
export function decodeXmlText(s: string): string {
  if (!s.includes('&')) return s;
  let out = '';
  let at = 0;
  for (let amp = s.indexOf('&'); amp >= 0; amp = s.indexOf('&', at)) {
    out += s.slice(at, amp);
    const semi = s.indexOf(';', amp);
    // A reference is short; anything longer is literal text (and keeps this loop linear).
    if (semi < 0 || semi - amp > 10) {
      out += '&';
      at = amp + 1;
      continue;
    }
    const name = s.slice(amp + 1, semi);
    let ch: string | undefined = XML_ENTITIES[name];
    if (ch === undefined && /^#x[0-9a-f]+$/i.test(name)) ch = String.fromCodePoint(Math.min(Number.parseInt(name.slice(2), 16), 0x10ffff));
    else if (ch === undefined && /^#\d+$/.test(name)) ch = String.fromCodePoint(Math.min(Number.parseInt(name.slice(1), 10), 0x10ffff));
    if (ch === undefined) {
      out += '&';
      at = amp + 1;
    } else {
      out += ch;
      at = semi + 1;
    }
  }
  return out + s.slice(at);
}

/** Attributes of a start tag's inside (`name a="1" b='2'`), read forward. */
function attributes(inside: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < inside.length) {
    while (i < inside.length && /[\s/]/.test(inside[i])) i++;
    let eq = i;
    while (eq < inside.length && inside[eq] !== '=' && !/\s/.test(inside[eq])) eq++;
    const name = inside.slice(i, eq).toLowerCase();
    if (inside[eq] !== '=') {
      i = eq + 1;
      continue;
    }
    const quote = inside[eq + 1];
    if (quote !== '"' && quote !== "'") {
      i = eq + 1;
      continue;
    }
    const close = inside.indexOf(quote, eq + 2);
    if (close < 0) break;
    if (name !== '' && !(name in out)) out[name] = decodeXmlText(inside.slice(eq + 2, close));
    i = close + 1;
  }
  return out;
}

/** The local name of a possibly prefixed element name, lowercased. */
const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

/**
 * Every tag of an XML document in one forward scan, comments, CDATA sections, processing instructions and
 * declarations skipped whole: each step continues after what it read, so a hostile file costs its length in work.
 * @example [...xmlTags('<a:urlset><loc>x</loc></a:urlset>')].map((t) => `${t.close ? '/' : ''}${t.name}`) // ['urlset', 'loc', '/loc', '/urlset']
 */
export function* xmlTags(xml: string): Generator<XmlTag> {
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) return;
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      if (end < 0) return;
      at = end + 3;
      continue;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt + 9);
      if (end < 0) return;
      at = end + 3;
      continue;
    }
    const gt = xml.indexOf('>', lt + 1);
    if (gt < 0) return;
    at = gt + 1;
    if (xml[lt + 1] === '?' || xml[lt + 1] === '!') continue;
    const close = xml[lt + 1] === '/';
    const inside = xml.slice(lt + (close ? 2 : 1), gt);
    const selfClose = inside.endsWith('/');
    let nameEnd = 0;
    while (nameEnd < inside.length && !/[\s/]/.test(inside[nameEnd])) nameEnd++;
    const qualified = inside.slice(0, nameEnd);
    yield { qualified, name: localName(qualified), attrs: close ? {} : attributes(inside.slice(nameEnd)), close, selfClose, end: gt + 1 };
  }
}
