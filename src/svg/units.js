/**
 * The vocabulary of the svg pass's work: a unit (one drawing that may
 * change, an SVG file or an inline <svg>), a group (drawings proven
 * together), and what the pass shares with the code that proves them.
 */
import crypto from 'node:crypto';

/**
 * @typedef {import('../site/site.js').Site} Site
 * @typedef {import('../build/pipeline.js').PassContext} PassContext
 * @typedef {import('./optimize.js').SvgJobOptions} SvgJobOptions
 * @typedef {import('./optimize.js').SvgJobResult} SvgJobResult
 * @typedef {import('./optimize.js').SvgShape} SvgShape
 * @typedef {import('./proof.js').SvgProof} SvgProof
 * @typedef {import('./proof.js').ProofGroup} ProofGroup
 * @typedef {import('./proof.js').ProofOutcome} ProofOutcome
 * @typedef {import('./references.js').SiteNames} SiteNames
 *
 * @typedef {object} Unit one drawing that may change: an SVG file or an inline <svg>
 * @property {string} text the original
 * @property {number} size its bytes
 * @property {(text: string) => number} sizeOf the bytes a version takes where it goes
 * @property {SvgJobOptions} job
 * @property {string | null} current the version being proven; null: the original stays
 * @property {string} first the first version svgo gave
 * @property {boolean} exactTried
 * @property {string[]} failed how each version that was given up drew
 * @property {string | null} unproven why it could not be proven at all
 * @property {SvgShape} shape
 *
 * @typedef {object} Group drawings proven together
 * @property {Unit[]} units
 * @property {(Unit | null)[]} owners per slot, the unit whose drawing it shows (null: a drawing that does not change)
 * @property {Unit[][]} providers per slot, the units of the other drawings whose ids it uses
 * @property {boolean} cacheable whether its drawings depend on nothing but their own text (no other file of the site)
 * @property {() => string} key what the proof depends on, hashed
 * @property {(proof: SvgProof) => ProofGroup} build
 *
 * @typedef {object} SvgPassState what the svg pass shares across its batches: the site's names, the browser, proofs already made
 * @property {Site} site
 * @property {PassContext} ctx
 * @property {string | null} noBrowser why no browser started, once one failed to
 * @property {number} unprovenForNoBrowser drawings left as they are for want of a browser
 * @property {() => Promise<SiteNames>} names the site's names, read on first use
 * @property {() => Promise<SvgProof | null>} started the proof, in the build's browser; null when none starts
 * @property {(text: string, job: SvgJobOptions) => Promise<SvgJobResult>} optimize a job's result for a unit's text
 * @property {(proof: SvgProof, groups: Group[]) => Promise<ProofOutcome[]>} prove outcomes of groups: known, cached or drawn now
 */

/**
 * A unit for an original and svgo's first result, or null when the result is no smaller.
 * @param {string} text
 * @param {number} size
 * @param {(text: string) => number} sizeOf
 * @param {SvgJobOptions} job
 * @param {{ text: string, shape: SvgShape }} result
 * @returns {Unit | null}
 */
export function unitOf(text, size, sizeOf, job, result) {
  if (sizeOf(result.text) >= size) return null;
  return { text, size, sizeOf, job, current: result.text, first: result.text, exactTried: false, failed: [], unproven: null, shape: result.shape };
}

/**
 * @param {string} text
 */
export function sha(text) {
  return crypto.createHash('sha256').update(text).digest('hex');
}
