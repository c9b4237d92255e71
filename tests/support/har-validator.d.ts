// har-validator ships no types: the one function the tests call, as its README documents it (the promise API).
declare module 'har-validator' {
  /** Resolves with `data` when it is a valid HAR 1.2 file, else rejects with the schema's errors. */
  export function har(data: unknown): Promise<unknown>;
}
