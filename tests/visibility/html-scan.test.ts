// The shared HTML tokenizer that head-break.ts and access.ts read pages with: the tokens the HTML standard's
// tokenizer makes for the shapes they ask about.
import { describe, expect, it } from 'vitest';
import { htmlTokens } from '@/lib/checks/visibility/html-scan';

const shape = (html: string) => [...htmlTokens(html)].map((t) => (t.kind === 'text' || t.kind === 'markup' ? `${t.kind}:${html.slice(t.start, t.end)}` : `${t.kind}:${t.name}:${html.slice(t.start, t.end)}`));

describe('htmlTokens', () => {
  it('reads tags, end tags, text, comments and doctypes in order, names lowercased', () => {
    expect(shape('<!DOCTYPE html><P Class="a">Hi<!-- c --></p>')).toEqual([
      'markup:<!DOCTYPE html>',
      'start:p:<P Class="a">',
      'text:Hi',
      'markup:<!-- c -->',
      'end:p:</p>',
    ]);
  });

  it("reads a '<' not followed by a letter, '/', '!' or '?' as text, as the standard does", () => {
    expect(shape('a < b <3')).toEqual(['text:a ', 'text:<', 'text: b ', 'text:<', 'text:3']);
  });

  it('reads the content of title, style, script, noscript and template as raw text up to its end tag', () => {
    expect(shape('<script>if (a<b) "</p>"</script><title>A <b>B</b></title>')).toEqual([
      'start:script:<script>',
      'raw:script:if (a<b) "</p>"',
      'end:script:</script>',
      'start:title:<title>',
      'raw:title:A <b>B</b>',
      'end:title:</title>',
    ]);
  });

  it('ends the stream at a tag or comment left open, and runs an unclosed raw element to the end', () => {
    expect(shape('x <p class="')).toEqual(['text:x ']);
    expect(shape('<p>a</p><!-- never closed')).toEqual(['start:p:<p>', 'text:a', 'end:p:</p>']);
    expect(shape('x <script>y z')).toEqual(['text:x ', 'start:script:<script>', 'raw:script:y z']);
  });

  it('cuts a tag name at whitespace, / or >', () => {
    expect(shape('<br/><img\tsrc=x><custom-el>')).toEqual(['start:br:<br/>', 'start:img:<img\tsrc=x>', 'start:custom-el:<custom-el>']);
  });
});
