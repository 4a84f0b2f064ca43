/** A label or field selector that does not parse (or does not validate); the message is upstream's text. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}
