import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KIND_COUNT, MATCH_COLOR, PALETTE_SIZE, RUN_COLOR, SHADES, buildPalette, hslToHex, nameHash, paletteIndex } from './flame-colors.js';

test('a name keeps its shade; the kind picks the family', () => {
  assert.equal(paletteIndex('App.Worker.Hot', 0), paletteIndex('App.Worker.Hot', 0));
  assert.equal(nameHash('App.Worker.Hot'), nameHash('App.Worker.Hot'));
  for (let kind = 0; kind < KIND_COUNT; kind++) {
    const p = paletteIndex('libc.so.6!futex_wait', kind);
    assert.ok(p >= kind * SHADES && p < (kind + 1) * SHADES);
  }
  assert.equal(Math.floor(paletteIndex('x', 99) / SHADES), 2, 'an unknown kind is drawn as synthetic');
  const shades = new Set(Array.from({ length: 200 }, (_, i) => paletteIndex(`M${i}`, 0)));
  assert.ok(shades.size > SHADES / 2, 'names spread over the shades');
});

test('palette: hex colours, normal and dimmed for every entry', () => {
  const p = buildPalette();
  assert.equal(p.normal.length, PALETTE_SIZE);
  assert.equal(p.dimmed.length, PALETTE_SIZE);
  for (const c of [...p.normal, ...p.dimmed]) assert.match(c, /^#[0-9a-f]{6}$/);
  assert.notEqual(p.normal[RUN_COLOR], p.normal[0]);
  assert.equal(p.normal[MATCH_COLOR], p.dimmed[MATCH_COLOR]);
  assert.equal(hslToHex(0, 100, 50), '#ff0000');
  assert.equal(hslToHex(120, 100, 25), '#008000');
  assert.equal(hslToHex(0, 0, 100), '#ffffff');
});
