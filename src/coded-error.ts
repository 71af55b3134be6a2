/**
 * An error with a machine-readable `code`: callers branch on the code, never on the message, which
 * names the offending value for a person. Every folder's typed errors extend it; its `name` is the
 * subclass's own, so logs and stacks say which folder refused.
 */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
