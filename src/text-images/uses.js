/**
 * The elements that show one candidate image, packed four numbers to a use
 * (its page, its tag's byte range, its shape) in one growing Uint32Array: a
 * site of 10,000 generated pages has 1.4 million uses, which as objects took
 * about 90 MB of JavaScript heap for the whole pass. A use is made an object
 * only while it is looked at.
 */

/**
 * @typedef {import('../site/site.js').SiteFile} SiteFile
 * @typedef {import('./candidates.js').Shape} Shape
 *
 * @typedef {object} Use one element showing a candidate image
 * @property {SiteFile} page
 * @property {number} tagStart byte offset of its start tag
 * @property {number} tagEnd byte offset after it
 * @property {Shape} shape
 */

const FIELDS = 4;

export class UseList {
  /**
   * @param {SiteFile[]} pages the site's pages, shared by every list: a use holds its index
   */
  constructor(pages) {
    this.pages = pages;
    /** @type {Shape[]} the shapes of this image's uses, in order of first use */
    this.shapes = [];
    /** @type {Map<Shape, number>} */
    this.shapeIndex = new Map();
    this.data = new Uint32Array(FIELDS * 4);
    this.length = 0;
  }

  /**
   * @param {number} pageIndex the page's index in `pages`
   * @param {number} tagStart
   * @param {number} tagEnd
   * @param {Shape} shape
   */
  push(pageIndex, tagStart, tagEnd, shape) {
    let s = this.shapeIndex.get(shape);
    if (s === undefined) {
      s = this.shapes.length;
      this.shapes.push(shape);
      this.shapeIndex.set(shape, s);
    }
    if ((this.length + 1) * FIELDS > this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    const o = this.length * FIELDS;
    this.data[o] = pageIndex;
    this.data[o + 1] = tagStart;
    this.data[o + 2] = tagEnd;
    this.data[o + 3] = s;
    this.length++;
  }

  /**
   * The index in `pages` of the page of the use at an index.
   * @param {number} i
   */
  pageIndexAt(i) {
    return this.data[i * FIELDS];
  }

  /** Gives back the room kept for more uses, once there will be none (a quarter of the array, on average). */
  trim() {
    this.data = this.data.slice(0, this.length * FIELDS);
  }

  /**
   * The use at an index, as an object.
   * @param {number} i
   * @returns {Use}
   */
  at(i) {
    const o = i * FIELDS;
    const d = this.data;
    return { page: this.pages[d[o]], tagStart: d[o + 1], tagEnd: d[o + 2], shape: this.shapes[d[o + 3]] };
  }

  /** @returns {Generator<Use>} */
  *[Symbol.iterator]() {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}
