// The account page's "Replace your key" form, rendered to HTML as the server renders it: a confirmation
// alone within a few minutes of signing in, a field for the current key after that.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';
import { RotateKeyForm } from '@/components/account/AccountSession';

type Node = { nodeName: string; value?: string; attrs?: Array<{ name: string; value: string }>; childNodes?: Node[] };
const textOf = (node: Node): string => (node.nodeName === '#text' ? ` ${node.value} ` : (node.childNodes ?? []).map(textOf).join(''));
const nodes = (node: Node): Node[] => [node, ...(node.childNodes ?? []).flatMap(nodes)];
const render = (askForKey: boolean) => parseFragment(renderToStaticMarkup(createElement(RotateKeyForm, { askForKey, onRotated: () => {} }))) as unknown as Node;
const inputs = (root: Node) => nodes(root).filter((n) => n.nodeName === 'input').map((n) => Object.fromEntries((n.attrs ?? []).map((a) => [a.name, a.value])));
const buttons = (root: Node) => nodes(root).filter((n) => n.nodeName === 'button').map((n) => textOf(n).trim());

describe('RotateKeyForm', () => {
  it('asks for the current key, in a password field, when the sign-in is older than the rotation window', () => {
    const root = render(true);
    expect(inputs(root)).toEqual([{ id: 'rotate-current-key', name: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', value: '' }]);
    expect(textOf(root).replace(/\s+/g, ' ')).toContain('Your current credits key');
    expect(buttons(root)).toEqual(['Replace this key']);
  });

  it('asks for a confirmation only, with no key field, right after signing in', () => {
    const root = render(false);
    expect(inputs(root)).toEqual([]);
    expect(buttons(root)).toEqual(['Replace this key']);
  });
});
