/**
 * A document's references, stored compactly: numbers in typed arrays and
 * strings (URLs, targets, kinds) as indexes into a table shared by the site,
 * where each distinct string is kept once. A page of a large site has
 * hundreds of references and most of its URLs are those of its neighbours:
 * as objects they cost about 250 bytes each (docs/scaling.md), here about 19.
 * Reference objects are made when a pass asks for a document's references.
 * What a parse finds travels (from the parse workers, to and from the cache)
 * as a FoundTable, compact the same way, from which a table is made without
 * making the objects.
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
  /**
   * @param {{ copy?: boolean }} [options] copy: keep a copy of each string (ownString), for a table that outlives
   *   the documents its strings were sliced from
   */
  constructor({ copy = true } = {}) {
    this.copy = copy;
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
      const own = this.copy ? ownString(value) : value;
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

/** Each distinct combination of slots once, numbered from 0, its slots one after another. */
class Combinations {
  constructor() {
    /** @type {Map<string, number>} */
    this.ids = new Map();
    /** @type {number[]} */
    this.slots = [];
  }

  /** @param {number[]} slots */
  id(slots) {
    const key = slots.join(',');
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
      this.slots.push(...slots);
    }
    return id;
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

/** The references a table made by fromFound starts from. @type {Reference[]} */
const EMPTY = [];

/** A boolean that may be absent, as a form keeps it: 0 absent, 1 false, 2 true. @param {boolean | undefined} value */
function triState(value) {
  return value === undefined ? 0 : value ? 2 : 1;
}

/** @typedef {import('./resolve.js').Resolution} Resolution */

/**
 * A document's references as parsing found them, before resolution, in the
 * form the cache stores and the parse workers send: each distinct string
 * once, numbers in typed arrays. Stored as objects, each reference's field
 * names and values were serialized again, and reading them back made five
 * million objects for a 10,000-page site's warm build.
 * @typedef {object} FoundTable
 * @property {number} length
 * @property {string[]} strings the distinct strings, numbered from 1 (0: absent)
 * @property {Uint32Array} urls each reference's URL
 * @property {Uint32Array} forms each distinct combination of kind, element, attribute and type (string numbers)
 *   and of the flags inPicture, media and overridden (0 absent, 1 false, 2 true: inPicture + 3 media + 9 overridden)
 * @property {Uint32Array} form each reference's combination
 * @property {Int32Array} numbers start, end, tagStart, tagEnd and choice of each reference (-1: absent)
 * @property {Float64Array | null} fits width and wanted width of each reference's fit (NaN: none); null when none has one
 */

/** The slots of a FoundTable's form. */
const FOUND_FORM_SIZE = 5;
/** The FoundReference fields a FoundTable's form keeps as strings, in order. */
const FOUND_FORM_FIELDS = /** @type {const} */ (['kind', 'element', 'attribute', 'type']);

/**
 * @param {import('./html-refs.js').FoundReference[]} references
 * @returns {FoundTable}
 */
export function packFound(references) {
  const n = references.length;
  // Not copied: the table is sent to another thread or serialized, which copies them, or read and dropped.
  const strings = new StringTable({ copy: false });
  const urls = new Uint32Array(n);
  const form = new Uint32Array(n);
  const numbers = new Int32Array(n * 5);
  /** @type {Float64Array | null} */
  let fits = null;
  const forms = new Combinations();
  for (let i = 0; i < n; i++) {
    const ref = references[i];
    urls[i] = strings.id(ref.url);
    const slots = FOUND_FORM_FIELDS.map((f) => strings.id(ref[f]));
    slots.push(triState(ref.inPicture) + 3 * triState(ref.media) + 9 * triState(ref.overridden));
    form[i] = forms.id(slots);
    numbers.set([ref.start, ref.end, ref.tagStart ?? -1, ref.tagEnd ?? -1, ref.choice ?? -1], i * 5);
    if (ref.fit) {
      fits ??= new Float64Array(n * 2).fill(NaN);
      fits[i * 2] = ref.fit.width;
      fits[i * 2 + 1] = ref.fit.wanted;
    }
  }
  return { length: n, strings: strings.strings, urls, forms: Uint32Array.from(forms.slots), form, numbers, fits };
}

/**
 * The references of a FoundTable as objects, with only the fields each had.
 * @param {FoundTable} found
 * @returns {import('./html-refs.js').FoundReference[]}
 */
export function unpackFound(found) {
  return Array.from({ length: found.length }, (_, i) => {
    const at = found.form[i] * FOUND_FORM_SIZE;
    /** @type {Record<string, unknown>} */
    const ref = { kind: found.strings[found.forms[at]], url: found.strings[found.urls[i]] };
    const [start, end, tagStart, tagEnd, choice] = found.numbers.subarray(i * 5, i * 5 + 5);
    Object.assign(ref, { start, end });
    for (const [slot, field] of FOUND_FORM_FIELDS.entries()) if (slot > 0 && found.forms[at + slot]) ref[field] = found.strings[found.forms[at + slot]];
    if (tagStart !== -1) ref.tagStart = tagStart;
    if (tagEnd !== -1) ref.tagEnd = tagEnd;
    const flags = found.forms[at + 4];
    if (flags % 3) ref.inPicture = flags % 3 === 2;
    if (choice !== -1) ref.choice = choice;
    if (Math.floor(flags / 3) % 3) ref.media = Math.floor(flags / 3) % 3 === 2;
    if (Math.floor(flags / 9)) ref.overridden = Math.floor(flags / 9) === 2;
    if (found.fits && !Number.isNaN(found.fits[i * 2])) ref.fit = { width: found.fits[i * 2], wanted: found.fits[i * 2 + 1] };
    return /** @type {import('./html-refs.js').FoundReference} */ (ref);
  });
}

/**
 * Whether a value (read from the cache) is a FoundTable.
 * @param {unknown} value
 * @returns {value is FoundTable}
 */
export function isFoundTable(value) {
  const t = /** @type {Partial<FoundTable> | null} */ (value);
  return typeof t === 'object' && t !== null && typeof t.length === 'number' && Array.isArray(t.strings) && t.urls instanceof Uint32Array && t.forms instanceof Uint32Array && t.form instanceof Uint32Array && t.numbers instanceof Int32Array && t.urls.length === t.length && t.form.length === t.length && t.numbers.length === t.length * 5;
}

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
    /** Each distinct form's slots (FORM_SIZE each). @type {Uint32Array<ArrayBufferLike>} */
    this.forms = new Uint32Array(0);
    /** Each reference's form. @type {Uint8Array | Uint16Array | Uint32Array} */
    this.form = new Uint8Array(0);
    this.narrow = true;
    /** end, tagStart and tagEnd of each reference (see finish). @type {Uint16Array | Int32Array} */
    this.offsets = new Uint16Array(0);
    // fromFound fills the table itself.
    if (references === EMPTY) return;
    const forms = new Combinations();
    const formOf = new Uint32Array(n);
    const positions = new Int32Array(n * 4);
    for (let i = 0; i < n; i++) {
      const ref = /** @type {Record<string, any>} */ (references[i]);
      this.urls[i * 2] = strings.id(ref.url);
      this.urls[i * 2 + 1] = strings.id(ref.target);
      this.starts[i] = ref.start;
      const form = FORM_FIELDS.map((f) => strings.id(ref[f]));
      form.push(triState(ref.inPicture), triState(ref.media), triState(ref.overridden));
      if (ref.fit !== undefined) (this.fits ??= new Map()).set(i, ref.fit);
      formOf[i] = forms.id(form);
      positions[i * 4] = ref.end;
      positions[i * 4 + 1] = ref.tagStart ?? -1;
      positions[i * 4 + 2] = ref.tagEnd ?? -1;
      positions[i * 4 + 3] = ref.choice ?? -1;
    }
    this.finish(Uint32Array.from(forms.slots), forms.ids.size, formOf, positions);
  }

  /**
   * The table of a document's references from what parsing it found (a
   * FoundTable, as the cache and the parse workers give it), each resolved
   * once per distinct kind and URL: no reference object is made.
   * @param {FoundTable} found
   * @param {StringTable} strings the site's
   * @param {string} source the document's path
   * @param {(kind: import('./reference-kinds.js').ReferenceKind, url: string) => Resolution} resolve
   */
  static fromFound(found, strings, source, resolve) {
    const n = found.length;
    const table = new ReferenceTable(EMPTY, strings);
    table.length = n;
    table.urls = new Uint32Array(n * 2);
    table.starts = new Uint32Array(n);
    const local = found.strings.map((value, i) => (i === 0 ? 0 : strings.id(value)));
    const sourceId = strings.id(source);
    const foundForms = found.forms.length / FOUND_FORM_SIZE;
    /**
     * Resolutions by kind and URL (local ids): their status, target, via and note ids, and the number of their
     * status, via and note together (what a form keeps of them).
     * @type {Map<number, Uint32Array>}
     */
    const resolutions = new Map();
    /** @type {Map<string, number>} */
    const outcomes = new Map();
    /** Forms by found form and outcome. @type {Map<number, number>} */
    const formIds = new Map();
    /** @type {number[]} */
    const forms = [];
    const formOf = new Uint32Array(n);
    const positions = new Int32Array(n * 4);
    for (let i = 0; i < n; i++) {
      const f = found.form[i];
      const kind = found.forms[f * FOUND_FORM_SIZE];
      const url = found.urls[i];
      const resolutionKey = kind * found.strings.length + url;
      let resolution = resolutions.get(resolutionKey);
      if (!resolution) {
        const r = resolve(/** @type {import('./reference-kinds.js').ReferenceKind} */ (found.strings[kind]), found.strings[url]);
        resolution = Uint32Array.of(strings.id(r.status), strings.id(r.path), strings.id(r.via), strings.id(r.note), 0);
        const outcome = `${resolution[0]},${resolution[2]},${resolution[3]}`;
        if (!outcomes.has(outcome)) outcomes.set(outcome, outcomes.size);
        resolution[4] = /** @type {number} */ (outcomes.get(outcome));
        resolutions.set(resolutionKey, resolution);
      }
      table.urls[i * 2] = local[url];
      table.urls[i * 2 + 1] = resolution[1];
      const formKey = resolution[4] * foundForms + f;
      let id = formIds.get(formKey);
      if (id === undefined) {
        id = formIds.size;
        formIds.set(formKey, id);
        const at = f * FOUND_FORM_SIZE;
        const flags = found.forms[at + 4];
        // In FORM_FIELDS' order: source, kind, element, attribute, status, via, note, type; then the flags.
        forms.push(sourceId, local[kind], local[found.forms[at + 1]], local[found.forms[at + 2]], resolution[0], resolution[2], resolution[3], local[found.forms[at + 3]], flags % 3, Math.floor(flags / 3) % 3, Math.floor(flags / 9));
      }
      formOf[i] = id;
      const numbers = found.numbers;
      table.starts[i] = numbers[i * 5];
      positions.set(numbers.subarray(i * 5 + 1, i * 5 + 5), i * 4);
      if (found.fits && !Number.isNaN(found.fits[i * 2])) (table.fits ??= new Map()).set(i, { width: found.fits[i * 2], wanted: found.fits[i * 2 + 1] });
    }
    table.finish(Uint32Array.from(forms), formIds.size, formOf, positions);
    return table;
  }

  /**
   * Keeps the forms and packs the offsets after each start: end, tagStart and tagEnd as 16-bit distances
   * (end - start, start - tagStart, tagEnd - end) when every one of the document fits, else as they are;
   * and the image choices.
   * @param {Uint32Array<ArrayBufferLike>} forms
   * @param {number} formCount
   * @param {Uint32Array} formOf each reference's form
   * @param {Int32Array} positions end, tagStart, tagEnd and choice of each reference, four a reference (-1: absent)
   * @private
   */
  finish(forms, formCount, formOf, positions) {
    const n = this.length;
    const starts = this.starts;
    this.forms = forms;
    this.form = indexArray(formCount, n);
    this.form.set(formOf);
    const fits = (/** @type {number} */ d) => d >= 0 && d < ABSENT16;
    let narrow = true;
    let anyChoice = false;
    let narrowChoices = true;
    for (let i = 0; i < n; i++) {
      const start = starts[i];
      const end = positions[i * 4];
      const tagStart = positions[i * 4 + 1];
      const tagEnd = positions[i * 4 + 2];
      const choice = positions[i * 4 + 3];
      narrow &&= fits(end - start) && (tagStart === -1 || fits(start - tagStart)) && (tagEnd === -1 || fits(tagEnd - end));
      if (choice !== -1) {
        anyChoice = true;
        narrowChoices &&= fits(start - choice);
      }
    }
    this.narrow = narrow;
    this.offsets = narrow ? new Uint16Array(n * 3) : new Int32Array(n * 3);
    this.choices = anyChoice ? (narrowChoices ? new Uint16Array(n).fill(ABSENT16) : new Int32Array(n).fill(-1)) : null;
    for (let i = 0; i < n; i++) {
      const start = starts[i];
      const end = positions[i * 4];
      const tagStart = positions[i * 4 + 1];
      const tagEnd = positions[i * 4 + 2];
      const choice = positions[i * 4 + 3];
      if (narrow) {
        this.offsets[i * 3] = end - start;
        this.offsets[i * 3 + 1] = tagStart === -1 ? ABSENT16 : start - tagStart;
        this.offsets[i * 3 + 2] = tagEnd === -1 ? ABSENT16 : tagEnd - end;
      } else {
        this.offsets[i * 3] = end;
        this.offsets[i * 3 + 1] = tagStart;
        this.offsets[i * 3 + 2] = tagEnd;
      }
      if (this.choices && choice !== -1) this.choices[i] = narrowChoices ? start - choice : choice;
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
