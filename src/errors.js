/**
 * An error caused by what the user asked for (a missing input, an output inside
 * the input, an unknown option): shown as one line, without a stack trace.
 */
export class UserError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'UserError';
  }
}
