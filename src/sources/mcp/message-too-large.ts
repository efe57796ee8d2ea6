/**
 * A server sent one message (stdio line, HTTP response) past the transport's bound. Its own class so that a caller
 * can tell it from other transport failures without matching the text (issue 14: a tool call answers 'too-large').
 */
export class MessageTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MessageTooLargeError';
  }
}
