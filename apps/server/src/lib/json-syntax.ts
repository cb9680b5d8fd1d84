/** Where and why a text is not valid JSON. */
export interface JsonSyntaxError {
  /** 1-based line of the first error. */
  line: number;
  /** 1-based column (in characters) of the first error. */
  column: number;
  /** What was expected there. */
  message: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Finds the first syntax error in `text` as strict JSON (RFC 8259), with its line and column;
 * null when the text is valid. `JSON.parse` only sometimes says where it failed, and never as a
 * line and column, which is what a person editing a config file needs.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const describe = () =>
    i >= text.length ? 'the end of the file' : `"${text[i] === '\n' ? '\\n' : text[i]}"`;
  const fail = (expected: string): never => {
    throw new Stop(i, `expected ${expected} but found ${describe()}`);
  };
  const string = () => {
    const start = i;
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) {
        throw new Stop(
          i,
          c === 0x0a
            ? 'a string runs past the end of its line (a missing closing quote?); write a line break inside a string as \\n'
            : 'a control character inside a string; escape it',
        );
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else throw new Stop(i, 'an invalid escape sequence in a string');
        continue;
      }
      i++;
    }
    throw new Stop(start, 'a string that is never closed');
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') fail('a value');
    i += m![0].length;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') object();
    else if (c === '[') array();
    else if (c === '"') string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else literal();
  };
  const literal = () => {
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    fail('a value (a string in double quotes, number, true, false, null, object or array)');
  };
  const object = () => {
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] === '}') fail('a property name in double quotes (no comma before "}")');
      if (text[i] !== '"') fail('a property name in double quotes');
      string();
      ws();
      if (text[i] !== ':') fail('":" after the property name');
      i++;
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail('"," or "}"');
    }
  };
  const array = () => {
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] === ']') fail('a value (no comma before "]")');
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail('"," or "]"');
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    if (i < text.length) fail('the end of the file after the top-level value');
    return null;
  } catch (e) {
    if (e instanceof RangeError) return null; // nested deeper than the stack: let JSON.parse say
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.at);
    const line = before.split('\n').length;
    const column = e.at - (before.lastIndexOf('\n') + 1) + 1;
    return { line, column, message: e.message };
  }
}
