/**
 * A document's references, stored compactly: numbers in typed arrays and
 * strings (URLs, targets, kinds) as indexes into a table shared by the site,
 * where each distinct string is kept once. A page of a large site has
 * hundreds of references and most of its URLs are those of its neighbours:
 * as objects they cost about 250 bytes each (docs/scaling.md), here about 50.
 * Reference objects are made when a pass asks for a document's references.
 */

/** @typedef {import('./site.js').Reference} Reference */

/**
 * A copy of a string that shares no memory with the one it came from: a
 * string sliced from a parsed document's text keeps the whole text alive.
 * @param {string} value
 */
export function ownString(value) {
  return Buffer.from(value, 'utf8').toString('utf8');
}

/** Each distinct string once, numbered from 1 (0: absent). */
export class StringTable {
  constructor() {
    /** @type {string[]} */
    this.strings = [''];
    /** @type {Map<string, number>} */
    this.ids = new Map();
  }

  /** @param {string | undefined} value */
  id(value) {
    if (value === undefined) return 0;
    let id = this.ids.get(value);
    if (id === undefined) {
      const own = ownString(value);
      id = this.strings.length;
      this.strings.push(own);
      this.ids.set(own, id);
    }
    return id;
  }

  /** @param {number} id */
  at(id) {
    return id === 0 ? undefined : this.strings[id];
  }
}

/** The string fields of a reference, in their column order. */
const STRING_FIELDS = /** @type {const} */ (['source', 'kind', 'url', 'element', 'attribute', 'status', 'target', 'via', 'note']);
/** The number fields; -1 is absent (offsets are never negative). */
const NUMBER_FIELDS = /** @type {const} */ (['start', 'end', 'tagStart', 'tagEnd']);
const TARGET_COLUMN = STRING_FIELDS.indexOf('target');

export class ReferenceTable {
  /**
   * @param {Reference[]} references
   * @param {StringTable} strings
   */
  constructor(references, strings) {
    const n = references.length;
    this.strings = strings;
    this.length = n;
    this.text = new Uint32Array(n * STRING_FIELDS.length);
    this.numbers = new Int32Array(n * NUMBER_FIELDS.length);
    /** inPicture: 0 absent, 1 false, 2 true. */
    this.flags = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const ref = /** @type {Record<string, any>} */ (references[i]);
      for (let f = 0; f < STRING_FIELDS.length; f++) this.text[i * STRING_FIELDS.length + f] = strings.id(ref[STRING_FIELDS[f]]);
      for (let f = 0; f < NUMBER_FIELDS.length; f++) this.numbers[i * NUMBER_FIELDS.length + f] = ref[NUMBER_FIELDS[f]] ?? -1;
      this.flags[i] = ref.inPicture === undefined ? 0 : ref.inPicture ? 2 : 1;
    }
  }

  /**
   * The i-th reference as an object, with only the fields it has.
   * @param {number} i
   * @returns {Reference}
   */
  at(i) {
    /** @type {Record<string, unknown>} */
    const ref = {};
    for (let f = 0; f < STRING_FIELDS.length; f++) {
      const value = this.strings.at(this.text[i * STRING_FIELDS.length + f]);
      if (value !== undefined) ref[STRING_FIELDS[f]] = value;
    }
    for (let f = 0; f < NUMBER_FIELDS.length; f++) {
      const value = this.numbers[i * NUMBER_FIELDS.length + f];
      if (value !== -1) ref[NUMBER_FIELDS[f]] = value;
    }
    if (this.flags[i]) ref.inPicture = this.flags[i] === 2;
    return /** @type {Reference} */ (ref);
  }

  /** Every reference as an object. */
  toArray() {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }

  /**
   * The target of the i-th reference, without making the object.
   * @param {number} i
   */
  targetAt(i) {
    return this.strings.at(this.text[i * STRING_FIELDS.length + TARGET_COLUMN]);
  }
}
