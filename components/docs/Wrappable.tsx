import { Fragment } from 'react';

/**
 * An identifier (an address path, an event name, a setting) that may wrap after each dot, slash or underscore
 * and nowhere else, so a phone's narrow line never splits it between two letters.
 * @example <code><Wrappable text="checkout.session.completed" /></code>
 */
export function Wrappable({ text }: { text: string }) {
  return (
    <>
      {text.split(/(?<=[._/])/).map((part, i) => (
        <Fragment key={i}>
          {i ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
