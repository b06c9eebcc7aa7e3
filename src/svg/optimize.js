/**
 * svgo with pagediet's presets, as a job of the worker pool (optimizeSvg):
 * the text in, the optimized text out, nothing read or fetched. Three
 * presets, by where the SVG is drawn:
 *
 * - `document`: an SVG file nothing outside refers into (drawn whole, by
 *   <img>, CSS or <object>): svgo's preset-default without the plugins that
 *   drop what people or scripts read. inlineStyles is off (it moves <style>
 *   rules into style attributes and drops the class names they matched),
 *   minifyStyles does not drop rules it finds unused, cleanupIds removes
 *   only ids nothing refers to and renames none, removeUnknownsAndDefaults
 *   keeps role (and aria and data attributes, its defaults), removeDesc is
 *   off. svgo 4 no longer removes viewBox or <title> in its preset.
 * - `in-context`: an SVG file whose ids are used from outside (a sprite:
 *   `<use href="icons.svg#cup">`). A <use> draws the symbol in the page,
 *   inheriting fill, stroke and color from there, so nothing that moves or
 *   drops a presentation attribute, shape or group runs: only comments,
 *   metadata, editor data, white space, numbers, colours and path data.
 * - `inline`: an <svg> in a page, which the page's CSS and scripts see: as
 *   in-context, and every id, class and element stays.
 *
 * Every preset keeps viewBox, <title>, <desc>, aria-* and role, class
 * names and `<!--! -->` comments. `exact` (the retry after a rendering
 * difference) leaves out every plugin that changes a number or a shape's
 * geometry: what is left cannot move a pixel.
 */
import { optimize } from 'svgo';

/**
 * @typedef {'document' | 'in-context' | 'inline'} SvgPreset
 *
 * @typedef {object} SvgJobOptions
 * @property {SvgPreset} preset
 * @property {string[]} keep ids to keep besides those the SVG's own aria attributes name
 * @property {number} precision digits after the point in coordinates and numbers
 * @property {boolean} exact only plugins that change no number nor geometry
 *
 * @typedef {object} SvgTarget an element with an id, for drawing it by itself
 * @property {string} name
 * @property {string | undefined} viewBox
 *
 * @typedef {object} SvgShape what the proof needs of the original
 * @property {{ width?: string, height?: string, viewBox?: string }} root the outer <svg>'s size attributes
 * @property {Record<string, SvgTarget>} targets the elements of the kept ids
 *
 * @typedef {{ status: 'optimized', text: string, shape: SvgShape } | { status: 'failed', reason: string }} SvgJobResult
 */

const XLINK = 'http://www.w3.org/1999/xlink';

/**
 * svgo runs its plugins again until the text stops shrinking on SVGs up to
 * this size; once on larger ones: on 582 SVGs the repeats saved under 1%
 * and doubled the time (a 860 KB drawing: 126 s against 60 s).
 */
const MULTIPASS_CHARACTERS = 64 * 1024;

/** Attributes whose value is a list of ids of the same document (ARIA's ID references). */
const ID_REFERENCE_ATTRIBUTES = new Set(['aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant', 'aria-details', 'aria-errormessage', 'aria-flowto', 'aria-describedat']);

/** Plugins that change numbers or geometry: left out of an exact run. */
const GEOMETRY = new Set(['cleanupNumericValues', 'convertPathData', 'convertTransform', 'convertShapeToPath', 'convertEllipseToCircle', 'mergePaths', 'moveGroupAttrsToElems', 'collapseGroups']);

/**
 * The plugins of a preset.
 * @param {SvgPreset} preset
 * @param {string[]} preserve ids cleanupIds keeps
 * @returns {import('svgo').PluginConfig[]}
 */
function plugins(preset, preserve) {
  /** @type {import('svgo').PluginConfig} */
  const minifyStyles = { name: 'minifyStyles', params: { usage: false } };
  /** @type {import('svgo').PluginConfig} */
  const cleanupIds = { name: 'cleanupIds', params: { remove: true, minify: false, preserve } };
  if (preset === 'document') {
    return [
      'removeDoctype', 'removeXMLProcInst', 'removeComments', 'removeDeprecatedAttrs', 'removeMetadata', 'removeEditorsNSData',
      'cleanupAttrs', 'mergeStyles', minifyStyles, cleanupIds, 'removeUselessDefs', 'cleanupNumericValues', 'convertColors',
      { name: 'removeUnknownsAndDefaults', params: { keepRoleAttr: true, keepAriaAttrs: true, keepDataAttrs: true } },
      'removeNonInheritableGroupAttrs', 'removeUselessStrokeAndFill', 'cleanupEnableBackground', 'removeHiddenElems', 'removeEmptyText',
      'convertShapeToPath', 'convertEllipseToCircle', 'moveElemsAttrsToGroup', 'moveGroupAttrsToElems', 'collapseGroups', 'convertPathData',
      'convertTransform', 'removeEmptyAttrs', 'removeEmptyContainers', 'mergePaths', 'removeUnusedNS', 'sortAttrs', 'sortDefsChildren',
    ];
  }
  return [
    'removeDoctype', 'removeXMLProcInst', 'removeComments', 'removeMetadata', 'removeEditorsNSData', 'cleanupAttrs', minifyStyles,
    ...(preset === 'in-context' ? /** @type {import('svgo').PluginConfig[]} */ ([cleanupIds, 'removeUselessDefs']) : []),
    'cleanupNumericValues', 'convertColors', 'convertPathData', 'convertTransform', 'removeUnusedNS',
  ];
}

/**
 * The job: one SVG through svgo.
 * @param {{ bytes: Uint8Array, options: SvgJobOptions }} input the SVG as UTF-8, without a byte order mark
 * @returns {Promise<SvgJobResult>}
 */
export async function optimizeSvg({ bytes, options }) {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // HTML needs no namespace declarations; an XML parser does for xlink:href.
  const declareXlink = options.preset === 'inline' && /\sxlink:/.test(text) && !/\sxmlns:xlink\s*=/.test(text);
  if (declareXlink) text = text.replace(/^<svg/i, (tag) => `${tag} xmlns:xlink="${XLINK}"`);
  try {
    const shape = inspect(text);
    const preserve = [...new Set([...options.keep, ...shape.ariaIds])];
    const chosen = plugins(options.preset, preserve).filter((p) => !options.exact || !GEOMETRY.has(typeof p === 'string' ? p : p.name));
    let out = optimize(text, { multipass: text.length <= MULTIPASS_CHARACTERS, floatPrecision: options.precision, plugins: chosen }).data;
    if (declareXlink) out = out.replace(/^(<svg)\s+xmlns:xlink="http:\/\/www\.w3\.org\/1999\/xlink"/i, '$1');
    /** @type {Record<string, SvgTarget>} */
    const targets = {};
    for (const id of options.keep) if (shape.targets.has(id)) targets[id] = /** @type {SvgTarget} */ (shape.targets.get(id));
    return { status: 'optimized', text: out, shape: { root: shape.root, targets } };
  } catch (error) {
    const e = /** @type {Error & { line?: number, column?: number, reason?: string }} */ (error);
    const reason = e.name === 'SvgoParserError' ? `line ${e.line}, column ${e.column}: ${e.reason}` : String(e.message).split('\n')[0];
    return { status: 'failed', reason };
  }
}

/**
 * What the original declares: its outer <svg>'s size, its elements with
 * ids, and the ids its aria attributes name (cleanupIds does not see those
 * as references).
 * @param {string} text
 */
function inspect(text) {
  const found = {
    /** @type {{ width?: string, height?: string, viewBox?: string }} */
    root: {},
    /** @type {Map<string, SvgTarget>} */
    targets: new Map(),
    /** @type {Set<string>} */
    ariaIds: new Set(),
  };
  /** @type {import('svgo').CustomPlugin} */
  const plugin = {
    name: 'pagedietInspect',
    fn: () => ({
      element: {
        enter(node, parent) {
          const a = node.attributes;
          if (parent.type === 'root') found.root = { width: a.width, height: a.height, viewBox: a.viewBox };
          for (const [name, value] of Object.entries(a)) {
            if (ID_REFERENCE_ATTRIBUTES.has(name)) for (const id of value.split(/\s+/)) if (id) found.ariaIds.add(id);
          }
          if (a.id !== undefined && !found.targets.has(a.id)) found.targets.set(a.id, { name: node.name, viewBox: a.viewBox });
        },
      },
    }),
  };
  optimize(text, { plugins: [plugin] });
  return found;
}
