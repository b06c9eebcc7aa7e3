/**
 * A document's references, stored compactly: numbers in typed arrays and
 * strings (URLs, targets, kinds) as indexes into a table shared by the site,
 * where each distinct string is kept once. A page of a large site has
 * hundreds of references and most of its URLs are those of its neighbours:
 * as objects they cost about 250 bytes each (docs/scaling.md), here about 19.
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

/**
 * The fields a document's references share a few values of (its own path,
 * img/src/ok/exact, a/href/ok...): each distinct combination, with inPicture,
 * is stored once per table as a "form", and a reference keeps its form's
 * number (one byte on almost every page).
 */
const FORM_FIELDS = /** @type {const} */ (['source', 'kind', 'element', 'attribute', 'status', 'via', 'note', 'type']);
/** The slots of `kind` and `status` in a form. */
const KIND_SLOT = FORM_FIELDS.indexOf('kind');
const STATUS_SLOT = FORM_FIELDS.indexOf('status');
/** A form's slots: the string ids of FORM_FIELDS, then inPicture, media and overridden (0 absent, 1 false, 2 true). */
const FORM_SIZE = FORM_FIELDS.length + 3;
/** The order of a reference object's fields, as the site model made them. */
const STRING_ORDER = /** @type {const} */ (['source', 'kind', 'url', 'element', 'attribute', 'status', 'target', 'via', 'note', 'type']);
/** Where each of them is kept: 0 url and 1 target in `urls`, else 2 + its slot in a form. */
const STRING_PLACES = STRING_ORDER.map((f) => (f === 'url' ? 0 : f === 'target' ? 1 : 2 + FORM_FIELDS.indexOf(/** @type {(typeof FORM_FIELDS)[number]} */ (f))));
/** In narrow offsets, the 16-bit value that means absent. */
const ABSENT16 = 0xffff;

/** @param {number} count @param {number} length */
function indexArray(count, length) {
  return count <= 0x100 ? new Uint8Array(length) : count <= 0x10000 ? new Uint16Array(length) : new Uint32Array(length);
}

export class ReferenceTable {
  /**
   * @param {Reference[]} references
   * @param {StringTable} strings
   */
  constructor(references, strings) {
    const n = references.length;
    this.strings = strings;
    this.length = n;
    /** url and target ids, two per reference. */
    this.urls = new Uint32Array(n * 2);
    this.starts = new Uint32Array(n);
    /**
     * The image choice (html-refs.js: the offset of its element) of each reference, null when none has one: as a
     * 16-bit distance before its start (ABSENT16: none) when every one fits, else as it is (-1: none). A page
     * of images has one for most of its references (a Map of them held 7 KB a page on a generated 10,000-page site).
     * @type {Uint16Array | Int32Array | null}
     */
    this.choices = null;
    /** The width descriptor and wanted width (html-refs.js) of the srcset candidates that have one, by index; null when none has. @type {Map<number, { width: number, wanted: number }> | null} */
    this.fits = null;
    /** @type {Map<string, number>} */
    const formIds = new Map();
    /** @type {number[]} */
    const forms = [];
    const formOf = new Uint32Array(n);
    // Offsets after start: end, tagStart and tagEnd as 16-bit distances (end - start,
    // start - tagStart, tagEnd - end) when every one of the document fits, else as they are.
    let narrow = true;
    for (let i = 0; i < n; i++) {
      const ref = /** @type {Record<string, any>} */ (references[i]);
      this.urls[i * 2] = strings.id(ref.url);
      this.urls[i * 2 + 1] = strings.id(ref.target);
      this.starts[i] = ref.start;
      const form = FORM_FIELDS.map((f) => strings.id(ref[f]));
      form.push(ref.inPicture === undefined ? 0 : ref.inPicture ? 2 : 1, ref.media === undefined ? 0 : ref.media ? 2 : 1, ref.overridden === undefined ? 0 : ref.overridden ? 2 : 1);
      if (ref.fit !== undefined) (this.fits ??= new Map()).set(i, ref.fit);
      const key = form.join(',');
      let id = formIds.get(key);
      if (id === undefined) {
        id = formIds.size;
        formIds.set(key, id);
        forms.push(...form);
      }
      formOf[i] = id;
      if (narrow) narrow = fitsNarrow(references[i]);
    }
    this.forms = Uint32Array.from(forms);
    this.form = indexArray(formIds.size, n);
    this.form.set(formOf);
    this.narrow = narrow;
    this.choices = choiceArray(references);
    this.offsets = narrow ? new Uint16Array(n * 3) : new Int32Array(n * 3);
    for (let i = 0; i < n; i++) {
      const { start, end, tagStart, tagEnd } = references[i];
      if (narrow) {
        this.offsets[i * 3] = end - start;
        this.offsets[i * 3 + 1] = tagStart === undefined ? ABSENT16 : start - tagStart;
        this.offsets[i * 3 + 2] = tagEnd === undefined ? ABSENT16 : tagEnd - end;
      } else {
        this.offsets[i * 3] = end;
        this.offsets[i * 3 + 1] = tagStart ?? -1;
        this.offsets[i * 3 + 2] = tagEnd ?? -1;
      }
    }
  }

  /**
   * The i-th reference as an object, with only the fields it has.
   * @param {number} i
   * @returns {Reference}
   */
  at(i) {
    const form = this.form[i] * FORM_SIZE;
    /** @type {Record<string, unknown>} */
    const ref = {};
    for (let f = 0; f < STRING_ORDER.length; f++) {
      const place = STRING_PLACES[f];
      const value = this.strings.at(place < 2 ? this.urls[i * 2 + place] : this.forms[form + place - 2]);
      if (value !== undefined) ref[STRING_ORDER[f]] = value;
    }
    const start = this.starts[i];
    const a = this.offsets[i * 3];
    const b = this.offsets[i * 3 + 1];
    const c = this.offsets[i * 3 + 2];
    ref.start = start;
    if (this.narrow) {
      ref.end = start + a;
      if (b !== ABSENT16) ref.tagStart = start - b;
      if (c !== ABSENT16) ref.tagEnd = start + a + c;
    } else {
      ref.end = a;
      if (b !== -1) ref.tagStart = b;
      if (c !== -1) ref.tagEnd = c;
    }
    const inPicture = this.forms[form + FORM_FIELDS.length];
    if (inPicture) ref.inPicture = inPicture === 2;
    const media = this.forms[form + FORM_FIELDS.length + 1];
    if (media) ref.media = media === 2;
    const overridden = this.forms[form + FORM_FIELDS.length + 2];
    if (overridden) ref.overridden = overridden === 2;
    const choice = this.choices?.[i];
    if (choice !== undefined && choice !== (this.choices instanceof Uint16Array ? ABSENT16 : -1)) ref.choice = this.choices instanceof Uint16Array ? start - choice : choice;
    const fit = this.fits?.get(i);
    if (fit !== undefined) ref.fit = fit;
    return /** @type {Reference} */ (ref);
  }

  /** Every reference as an object. */
  toArray() {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }

  /**
   * The kind of the i-th reference, without making the object.
   * @param {number} i
   * @returns {import('./reference-kinds.js').ReferenceKind}
   */
  kindAt(i) {
    return /** @type {import('./reference-kinds.js').ReferenceKind} */ (this.strings.at(this.forms[this.form[i] * FORM_SIZE + KIND_SLOT]));
  }

  /**
   * The status of the i-th reference, without making the object.
   * @param {number} i
   * @returns {import('./site.js').Reference['status']}
   */
  statusAt(i) {
    return /** @type {import('./site.js').Reference['status']} */ (this.strings.at(this.forms[this.form[i] * FORM_SIZE + STATUS_SLOT]));
  }

  /**
   * The target of the i-th reference, without making the object.
   * @param {number} i
   */
  targetAt(i) {
    return this.strings.at(this.urls[i * 2 + 1]);
  }
}

/**
 * The references' image choices as ReferenceTable keeps them, or null when none has one.
 * @param {Reference[]} references
 * @returns {Uint16Array | Int32Array | null}
 */
function choiceArray(references) {
  if (!references.some((r) => r.choice !== undefined)) return null;
  const narrow = references.every((r) => r.choice === undefined || (r.start - r.choice >= 0 && r.start - r.choice < ABSENT16));
  const choices = narrow ? new Uint16Array(references.length).fill(ABSENT16) : new Int32Array(references.length).fill(-1);
  for (const [i, { start, choice }] of references.entries()) if (choice !== undefined) choices[i] = narrow ? start - choice : choice;
  return choices;
}

/**
 * Whether a reference's offsets after its start fit the narrow form.
 * @param {Reference} ref
 */
function fitsNarrow({ start, end, tagStart, tagEnd }) {
  const fits = (/** @type {number} */ d) => d >= 0 && d < ABSENT16;
  return fits(end - start) && (tagStart === undefined || fits(start - tagStart)) && (tagEnd === undefined || fits(tagEnd - end));
}
