// d3-flame-graph (SVG) on the same synthetic tree, for the comparison the issue asks for.
// Bundled only with --d3, from scripts/bench/.tools/d3 (not a project dependency).
import { select } from 'd3-selection';
import flamegraph from 'd3-flame-graph';
import { synthesizeTree } from './synthetic-tree.mjs';

const twoFrames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));

/** FlatTree -> the nested {name, value, children} objects d3-flame-graph reads (value = total). */
function nested(tree) {
  const nodes = Array.from({ length: tree.nodeCount }, (_, i) => ({ name: tree.labels[tree.label[i]], value: tree.total[i], children: [] }));
  for (let i = 1; i < tree.nodeCount; i++) nodes[tree.parent[i]].children.push(nodes[i]);
  return nodes[0];
}

async function render(data, width, minFrameSize) {
  document.body.replaceChildren();
  const div = document.createElement('div');
  document.body.appendChild(div);
  await twoFrames();
  const chart = flamegraph().width(width).cellHeight(18).transitionDuration(0).minFrameSize(minFrameSize).sort(false);
  const start = performance.now();
  select(div).datum(data).call(chart);
  // Wait for style, layout and paint of the SVG, not only the DOM calls.
  await twoFrames();
  return { ms: performance.now() - start, chart, div };
}

window.benchD3 = async ({ nodes, width }) => {
  const tree = synthesizeTree({ nodes });
  const first = await render(nested(tree), width, 0);
  const svgRects = first.div.querySelectorAll('rect').length;
  const small = await render(nested(tree), width, 1);
  // Zoom one click down the widest child of the root's widest child.
  const root = select(small.div).datum();
  let node = root;
  for (let d = 0; d < 2 && node.children; d++) node = node.children.reduce((a, b) => (b.value > a.value ? b : a));
  const z0 = performance.now();
  small.chart.zoomTo(node);
  await twoFrames();
  const zoomMs = performance.now() - z0;
  return { version: '5.0.0', nodes: tree.nodeCount, firstDrawMs: first.ms, svgRects, firstDrawMinFrameMs: small.ms, zoomMs };
};
