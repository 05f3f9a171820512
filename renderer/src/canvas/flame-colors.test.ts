import { readFileSync } from 'node:fs';
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

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string): number => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// The frames keep their colours in the light and the dark theme (renderer/theme.css gives both
// the same --flame-text and --flame-dim-text): a label must read on every entry of the palette.
test('labels read at 4.5:1 on every frame colour, dimmed labels on every dimmed colour', () => {
  const theme = readFileSync(new URL('../../../../../renderer/theme.css', import.meta.url), 'utf8');
  const variable = (name: string): string[] => [...theme.matchAll(new RegExp(`${name}:\\s*(#[0-9a-f]{6});`, 'g'))].map((m) => m[1]);
  assert.deepEqual(variable('--flame-text').length, 1, 'one --flame-text for both themes');
  const [text] = variable('--flame-text');
  const [dim] = variable('--flame-dim-text');
  const p = buildPalette();
  const worst = (fg: string, colors: string[]): number => Math.min(...colors.map((c) => contrast(fg, c)));
  assert.ok(worst(text, p.normal) >= 4.5, `label on a frame: ${worst(text, p.normal).toFixed(2)}:1`);
  const unmatched = p.dimmed.filter((_, i) => i !== MATCH_COLOR);
  assert.ok(worst(dim, unmatched) >= 4.5, `dimmed label on a dimmed frame: ${worst(dim, unmatched).toFixed(2)}:1`);
});
