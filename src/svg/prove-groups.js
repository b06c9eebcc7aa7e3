/**
 * Proves groups of drawings until every unit is either proven or back at its
 * original, giving a unit that draws differently one more try with svgo's
 * exact preset.
 */

/**
 * @typedef {import('./units.js').Unit} Unit
 * @typedef {import('./units.js').Group} Group
 * @typedef {import('./units.js').SvgPassState} SvgPassState
 */

/**
 * Proves groups until every unit is either proven or back at its original:
 * a unit whose drawing differs tries the exact preset, then gives up. A
 * slot that differs sets back first the changing units whose ids its
 * drawing uses (a sprite's symbol), else its own; one that no changing unit
 * can explain sets back every changing unit of the group.
 * @param {SvgPassState} state
 * @param {Group[]} groups
 */
export async function proveGroups(state, groups) {
  let pending = groups.filter((g) => g.units.some((u) => u.current !== null));
  while (pending.length) {
    const proof = await state.started();
    if (!proof) {
      for (const g of pending) for (const u of g.units) if (u.current !== null) { u.current = null; state.unprovenForNoBrowser++; }
      return;
    }
    const outcomes = await state.prove(proof, pending);
    /** @type {Group[]} */
    const next = [];
    for (let i = 0; i < pending.length; i++) {
      const group = pending[i];
      const outcome = outcomes[i];
      if (outcome.same === true) continue;
      if (outcome.same === null) {
        for (const u of group.units) if (u.current !== null) { u.current = null; u.unproven = outcome.reason; }
        continue;
      }
      /** @type {Map<Unit, string>} */
      const blamed = new Map();
      let collateral = '';
      for (const d of outcome.differences) {
        const providers = group.providers[d.slot].filter((u) => u.current !== null);
        const owner = group.owners[d.slot];
        if (providers.length) for (const u of providers) { if (!blamed.has(u)) blamed.set(u, `a drawing that uses it: ${d.reason}`); }
        else if (owner && owner.current !== null) { if (!blamed.has(owner)) blamed.set(owner, d.reason); } else collateral ||= d.reason;
      }
      if (collateral) for (const u of group.units) if (u.current !== null && !blamed.has(u)) blamed.set(u, `a drawing that uses it: ${collateral}`);
      for (const [u, reason] of blamed) await retry(state, u, reason);
      if (group.units.some((u) => u.current !== null)) next.push(group);
    }
    pending = next;
  }
}

/**
 * After a version drew differently: the exact preset's result, when it is
 * another and still smaller, else the original.
 * @param {SvgPassState} state
 * @param {Unit} unit
 * @param {string} reason
 */
async function retry(state, unit, reason) {
  unit.failed.push(reason);
  unit.current = null;
  if (unit.exactTried) return;
  unit.exactTried = true;
  const result = await state.optimize(unit.text, { ...unit.job, exact: true });
  if (result.status === 'optimized' && result.text !== unit.first && unit.sizeOf(result.text) < unit.size) unit.current = result.text;
}
