/**
 * The tree the robot's discovery parses a page into: the site model's parse
 * (the parse5 cheerio uses, with source locations and scripting enabled, as
 * cheerio.load calls it, so the same tree construction), stored leaner. The
 * site model keeps a full domhandler tree for its checks and passes; finding
 * references only reads elements' type, name, attribs, parent, children and
 * sourceCodeLocation
 * (referencesInTree in src/site/html-refs.js), so this tree keeps exactly
 * those, with the same values, and drops the rest: text content (node
 * placeholders stay, so parse5 finds the text node it merges into and
 * foster-parents before), text locations, attribute namespaces and prefixes,
 * sibling links and the doctype node.
 *
 * Element locations are updated in place where the domhandler adapter copies
 * them: parse5 gives each element its own location object (the start tag's
 * location, shared by elements reopened from one formatting tag, is only
 * read), so the values are the same. test/loader.test.js holds the
 * references found this way equal to the site model's on every fixture page
 * and on markup that exercises foster parenting, reopened formatting
 * elements, templates, foreign content and attribute adoption.
 */
import { createRequire } from 'node:module';

/**
 * parse5 as cheerio resolves it (the same package and version as the site
 * model's parses), called directly: cheerio.load defines a new Cheerio class
 * on every call, which made a page's discovery about twice as costly as the
 * parse itself (microscape's page: 6 to 8 ms against 3.5 to 4 ms, 2026-11-21).
 * @type {{ parse: (html: string, options: { sourceCodeLocationInfo: boolean, scriptingEnabled: boolean, treeAdapter: object }) => unknown }}
 */
const parse5 = createRequire(createRequire(import.meta.url).resolve('cheerio'))('parse5');

/** domhandler's node types, as the walk tests them. */
const ELEMENT_TYPES = new Set(['tag', 'script', 'style']);

/**
 * @typedef {{ startOffset: number, endOffset: number, [key: string]: unknown }} Location
 */

/** A node with domhandler's shape for what the walk reads. */
class LeanNode {
  /**
   * @param {string} type domhandler's: 'root', 'tag', 'script', 'style', 'text' or 'comment'
   * @param {string} name lower-case element name ('' for others)
   * @param {Record<string, string>} attribs
   * @param {string} namespace
   */
  constructor(type, name, attribs, namespace) {
    this.type = type;
    this.name = name;
    this.attribs = attribs;
    this.namespace = namespace;
    /** @type {LeanNode | null} */
    this.parent = null;
    /** @type {LeanNode[]} */
    this.children = [];
    /** @type {Location | null} */
    this.sourceCodeLocation = null;
  }
}

const NO_ATTRIBUTES = /** @type {Record<string, string>} */ ({});

/** @param {string} type */
const node = (type) => new LeanNode(type, '', NO_ATTRIBUTES, '');

/** @param {LeanNode} parent @param {LeanNode} child */
function appendChild(parent, child) {
  parent.children.push(child);
  child.parent = parent;
}

/** @param {LeanNode} parent @param {LeanNode} child @param {LeanNode} reference */
function insertBefore(parent, child, reference) {
  parent.children.splice(parent.children.indexOf(reference), 0, child);
  child.parent = parent;
}

/**
 * parse5's tree adapter interface, for the lean nodes; each method does what
 * parse5-htmlparser2-tree-adapter (cheerio's) does to the parts kept.
 */
const leanAdapter = {
  createDocument: () => Object.assign(node('root'), { mode: 'no-quirks' }),
  createDocumentFragment: () => node('root'),
  /** @param {string} tagName @param {string} namespaceURI @param {{ name: string, value: string }[]} attrs */
  createElement(tagName, namespaceURI, attrs) {
    /** @type {Record<string, string>} */
    const attribs = Object.create(null);
    for (const attr of attrs) attribs[attr.name] = attr.value;
    const type = tagName === 'script' ? 'script' : tagName === 'style' ? 'style' : 'tag';
    return new LeanNode(type, tagName, attribs, namespaceURI);
  },
  createCommentNode: () => node('comment'),
  createTextNode: () => node('text'),
  appendChild,
  insertBefore,
  /** @param {LeanNode} template @param {LeanNode} content */
  setTemplateContent: (template, content) => appendChild(template, content),
  /** @param {LeanNode} template */
  getTemplateContent: (template) => template.children[0],
  setDocumentType() {},
  /** @param {LeanNode & { mode?: string }} document @param {string} mode */
  setDocumentMode(document, mode) {
    document.mode = mode;
  },
  /** @param {LeanNode & { mode?: string }} document */
  getDocumentMode: (document) => document.mode,
  /** @param {LeanNode} child */
  detachNode(child) {
    if (!child.parent) return;
    child.parent.children.splice(child.parent.children.indexOf(child), 1);
    child.parent = null;
  },
  /** @param {LeanNode} parent */
  insertText(parent) {
    const last = parent.children[parent.children.length - 1];
    if (!last || last.type !== 'text') appendChild(parent, node('text'));
  },
  /** @param {LeanNode} parent @param {string} _text @param {LeanNode} reference */
  insertTextBefore(parent, _text, reference) {
    const previous = parent.children[parent.children.indexOf(reference) - 1];
    if (!previous || previous.type !== 'text') insertBefore(parent, node('text'), reference);
  },
  /** @param {LeanNode} recipient @param {{ name: string, value: string }[]} attrs */
  adoptAttributes(recipient, attrs) {
    for (const attr of attrs) if (recipient.attribs[attr.name] === undefined) recipient.attribs[attr.name] = attr.value;
  },
  /** @param {LeanNode} parent */
  getFirstChild: (parent) => parent.children[0],
  /** @param {LeanNode} parent */
  getChildNodes: (parent) => parent.children,
  /** @param {LeanNode} child */
  getParentNode: (child) => child.parent,
  /** As domhandler's `attributes`: one per attribs key (foreign attributes are keyed by local name there too). @param {LeanNode} element */
  getAttrList: (element) => Object.keys(element.attribs).map((name) => ({ name, value: element.attribs[name] })),
  /** @param {LeanNode} element */
  getTagName: (element) => element.name,
  /** @param {LeanNode} element */
  getNamespaceURI: (element) => element.namespace,
  getTextNodeContent: () => '',
  getCommentNodeContent: () => '',
  getDocumentTypeNodeName: () => '',
  getDocumentTypeNodePublicId: () => '',
  getDocumentTypeNodeSystemId: () => '',
  /** @param {LeanNode} n */
  isTextNode: (n) => n.type === 'text',
  /** @param {LeanNode} n */
  isCommentNode: (n) => n.type === 'comment',
  isDocumentTypeNode: () => false,
  /** @param {LeanNode} n */
  isElementNode: (n) => ELEMENT_TYPES.has(n.type),
  /** Text locations are not kept: parse5 then sets each text token's instead of extending the node's. @param {LeanNode} n @param {Location | null} location */
  setNodeSourceCodeLocation(n, location) {
    if (n.type !== 'text') n.sourceCodeLocation = location;
  },
  /** @param {LeanNode} n */
  getNodeSourceCodeLocation: (n) => n.sourceCodeLocation,
  /** @param {LeanNode} n @param {Partial<Location>} end */
  updateNodeSourceCodeLocation(n, end) {
    if (n.sourceCodeLocation) Object.assign(n.sourceCodeLocation, end);
  },
};

/**
 * Parses a page's view text as the site model does, into a lean tree for
 * referencesInTree.
 * @param {string} text DocumentView.text
 * @returns {import('domhandler').AnyNode} the document; its nodes have domhandler's shape for the fields the walk reads
 */
export function parseForDiscovery(text) {
  // The options cheerio.load gives parse5 for a document; only the tree's storage differs.
  const document = parse5.parse(text, { sourceCodeLocationInfo: true, scriptingEnabled: true, treeAdapter: leanAdapter });
  return /** @type {import('domhandler').AnyNode} */ (document);
}
