// The script inside flame.html, as text: it draws the embedded trees (flame-tree.ts's shape) as
// positioned boxes, root at the bottom, and gives them what a flame graph needs to be read
// away from clrscope: a metric selector, click to zoom (the frame's callers stay, full width),
// search by text or /regex/ with the matched share, next match, reset, a tooltip line, and keys
// (Esc reset, / search, n next match, Backspace back out of one zoom level); a page saved from
// the workstation opens at its view's zoom and search (data.start). Kept in a
// TypeScript string so structs/ stays free of file reads; it runs in the page, not here.

export const FLAME_HTML_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('flame-data').textContent);
  var graph = document.getElementById('graph');
  var status = document.getElementById('status');
  var search = document.getElementById('search');
  var metricSel = document.getElementById('metric');
  var resetBtn = document.getElementById('reset');
  var ROW = 18;
  var tree, parent, end, zoom = 0, history = [], matcher = null, matches = [], matchAt = -1;

  function fmt(v, unit) {
    if (unit === 'nanoseconds') return (v / 1e6).toLocaleString('en-US', { maximumFractionDigits: v < 1e7 ? 2 : 0 }) + ' ms';
    if (unit === 'bytes') return v >= 1048576 ? (v / 1048576).toFixed(1) + ' MB' : v >= 1024 ? (v / 1024).toFixed(1) + ' KB' : Math.round(v) + ' B';
    return Math.round(v).toLocaleString('en-US');
  }
  function hash(s, seed) {
    var h = 2166136261 ^ seed;
    for (var i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return ((h >>> 0) % 1000) / 1000;
  }
  function colour(s) {
    return 'rgb(' + (205 + Math.round(50 * hash(s, 1))) + ',' + Math.round(230 * hash(s, 2)) + ',' + Math.round(55 * hash(s, 3)) + ')';
  }
  function load(t) {
    tree = t;
    var n = t.name.length, stack = [];
    parent = new Int32Array(n);
    end = new Int32Array(n);
    for (var i = 0; i < n; i++) {
      while (stack.length > t.depth[i]) end[stack.pop()] = i;
      parent[i] = stack.length > 0 ? stack[stack.length - 1] : -1;
      stack.push(i);
    }
    while (stack.length > 0) end[stack.pop()] = n;
    zoom = 0;
    history = [];
    findMatches();
    draw();
  }
  function nameOf(i) { return tree.names[tree.name[i]]; }
  function share(i) { return tree.total[0] > 0 ? (100 * tree.total[i] / tree.total[0]).toFixed(2) + '%' : '0%'; }
  function tip(i) { return nameOf(i) + ' — ' + fmt(tree.total[i], tree.unit) + ' (' + share(i) + ' of all)'; }
  function findMatches() {
    matches = [];
    matchAt = -1;
    if (matcher === null) return;
    for (var i = 1; i < tree.name.length; i++) if (matcher(nameOf(i))) matches.push(i);
  }
  function matchedTotal() {
    // Topmost matches only: a match under a match is already in its total.
    var sum = 0, skipUntil = -1;
    for (var k = 0; k < matches.length; k++) {
      var i = matches[k];
      if (i < skipUntil) continue;
      sum += tree.total[i];
      skipUntil = end[i];
    }
    return sum;
  }
  function draw() {
    var width = graph.clientWidth || 1200;
    var maxDepth = 0;
    for (var i = 0; i < tree.depth.length; i++) if (tree.depth[i] > maxDepth) maxDepth = tree.depth[i];
    var height = (maxDepth + 1) * ROW;
    graph.style.height = height + 'px';
    var html = [];
    var scale = tree.total[zoom] > 0 ? width / tree.total[zoom] : 0;
    function box(i, x, w, dim) {
      var name = nameOf(i);
      var cls = 'frame' + (dim ? ' above' : '') + (matcher !== null && i > 0 && matcher(name) ? ' match' : '') + (i === zoom ? ' zoomed' : '');
      var top = height - (tree.depth[i] + 1) * ROW;
      html.push('<div class="' + cls + '" data-node="' + i + '" style="left:' + x.toFixed(1) + 'px;width:' + Math.max(0, w - 1).toFixed(1) + 'px;top:' + top + 'px;background:' + (i === 0 ? '#e6783c' : colour(name)) + '" title="' + esc(tip(i)) + '">' + (w > 24 ? esc(name) : '') + '</div>');
    }
    for (var a = parent[zoom]; a >= 0; a = parent[a]) box(a, 0, width, true);
    var next = [];
    for (var j = zoom; j < end[zoom]; j++) {
      var d = tree.depth[j];
      var x = j === zoom ? 0 : next[d];
      var w = tree.total[j] * scale;
      next[d] = x + w;
      next[d + 1] = x;
      if (w >= 0.5) box(j, x, w, false);
    }
    graph.innerHTML = html.join('');
    resetBtn.disabled = zoom === 0;
    var said = tree.title + ': ' + fmt(tree.total[0], tree.unit) + ' in all';
    if (zoom !== 0) said += '; zoomed to ' + nameOf(zoom) + ' (' + share(zoom) + ')';
    if (matcher !== null) said += '; matched ' + matches.length + ' frames, ' + (tree.total[0] > 0 ? (100 * matchedTotal() / tree.total[0]).toFixed(2) : '0') + '% of all';
    status.textContent = said;
  }
  function esc(s) { return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); }
  function zoomTo(i) {
    if (i === zoom) return;
    history.push(zoom);
    zoom = i;
    draw();
  }
  function back() {
    if (history.length === 0) return;
    zoom = history.pop();
    draw();
  }
  function reset() {
    history = [];
    zoom = 0;
    draw();
  }
  function setSearch(text) {
    matcher = null;
    var t = text.trim();
    if (t !== '') {
      var re = /^\/(.+)\/([a-z]*)$/.exec(t);
      if (re !== null) {
        try { var r = new RegExp(re[1], re[2]); matcher = function (s) { return r.test(s); }; } catch (e) { matcher = null; }
      } else {
        var low = t.toLowerCase();
        matcher = function (s) { return s.toLowerCase().indexOf(low) >= 0; };
      }
    }
    findMatches();
    draw();
  }
  function nextMatch() {
    if (matches.length === 0) return;
    matchAt = (matchAt + 1) % matches.length;
    zoomTo(matches[matchAt]);
  }
  graph.addEventListener('click', function (e) {
    var el = e.target.closest('[data-node]');
    if (el === null) return;
    var i = Number(el.getAttribute('data-node'));
    if (i === zoom && zoom !== 0) back(); else zoomTo(i);
  });
  graph.addEventListener('mousemove', function (e) {
    var el = e.target.closest('[data-node]');
    if (el !== null) status.textContent = tip(Number(el.getAttribute('data-node')));
  });
  graph.addEventListener('mouseleave', draw);
  search.addEventListener('input', function () { setSearch(search.value); });
  search.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); nextMatch(); }
    if (e.key === 'Escape') { search.value = ''; setSearch(''); search.blur(); }
  });
  resetBtn.addEventListener('click', reset);
  metricSel.addEventListener('change', function () { load(data.trees[Number(metricSel.value)]); });
  document.addEventListener('keydown', function (e) {
    if (e.target === search || e.target === metricSel) return;
    if (e.key === 'Escape') reset();
    else if (e.key === '/' || (e.key === 'f' && (e.ctrlKey || e.metaKey))) { e.preventDefault(); search.focus(); }
    else if (e.key === 'n') nextMatch();
    else if (e.key === 'Backspace') { e.preventDefault(); back(); }
  });
  window.addEventListener('resize', draw);
  for (var m = 0; m < data.trees.length; m++) {
    var o = document.createElement('option');
    o.value = String(m);
    o.textContent = data.trees[m].title;
    metricSel.appendChild(o);
  }
  window.__flame = { zoomed: function () { return zoom === 0 ? [] : path(zoom); }, matches: function () { return matches.length; }, total: function () { return tree.total[0]; }, metric: function () { return tree.metric; } };
  function path(i) { var p = []; for (var a = i; a > 0; a = parent[a]) p.unshift(nameOf(a)); return p; }
  load(data.trees[0]);
  // Saved from the workstation: open where its view was, the zoom a path of names as its own.
  if (data.start) {
    if (data.start.search) { search.value = data.start.search; setSearch(data.start.search); }
    var at = 0;
    for (var p = 0; p < data.start.zoom.length; p++) {
      var found = -1;
      for (var c = at + 1; c < end[at]; c = end[c]) if (nameOf(c) === data.start.zoom[p]) { found = c; break; }
      if (found < 0) break;
      at = found;
    }
    zoomTo(at);
  }
})();
`;
