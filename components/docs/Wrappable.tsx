import { Fragment } from 'react';

/**
 * Text whose identifiers (an address path, an event name, a setting) may wrap after a dot, slash or underscore
 * that a letter follows, and nowhere else inside them, so a phone's narrow line never splits one between two
 * letters. A number's decimal point is left alone.
 * @example <code><Wrappable text="checkout.session.completed" /></code>
 */
export function Wrappable({ text }: { text: string }) {
  return (
    <>
      {text.split(/(?<=[._/])(?=[A-Za-z"[])/).map((part, i) => (
        <Fragment key={i}>
          {i ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
