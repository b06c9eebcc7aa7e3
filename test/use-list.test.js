import { describe, expect, it } from 'vitest';
import { UseList } from '../src/text-images/uses.js';

describe('UseList', () => {
  it('gives back every use as pushed, past its first growth, with shapes shared', () => {
    const pages = /** @type {any[]} */ ([{ path: 'a.html' }, { path: 'b.html' }, { path: 'c.html' }]);
    const bullet = /** @type {any} */ ({ name: 'img', attrs: { alt: '*' }, width: 8, height: 8, layout: [] });
    const button = /** @type {any} */ ({ name: 'input', attrs: { alt: 'Go' }, width: 30, height: 20, layout: [] });
    const list = new UseList(pages);
    const expected = [];
    for (let i = 0; i < 37; i++) {
      const use = { page: pages[i % 3], tagStart: 1000 * i, tagEnd: 1000 * i + 40 + i, shape: i % 5 ? bullet : button };
      list.push(i % 3, use.tagStart, use.tagEnd, use.shape);
      expected.push(use);
    }
    expect(list.length).toBe(37);
    expect([...list]).toEqual(expected);
    expect(list.at(35)).toEqual({ page: pages[2], tagStart: 35000, tagEnd: 35075, shape: button });
    expect(list.at(7).shape).toBe(bullet);
    expect(list.shapes).toEqual([button, bullet]);
    expect(list.data.length).toBe(256);
    list.trim();
    expect(list.data.length).toBe(37 * 4);
    expect([...list]).toEqual(expected);
  });
});
