/**
 * An error caused by what the user asked for (a missing input, an output inside
 * the input, an unknown option): shown as one line, without a stack trace.
 */
export class UserError extends Error {
  /**
   * @param {string} message in the API's words (its option names)
   * @param {{ cli?: string }} [words] cli: the same in the command line's words (its flags), when they differ
   */
  constructor(message, words = {}) {
    super(message);
    this.name = 'UserError';
    /** What the command line prints. */
    this.cli = words.cli ?? message;
  }
}
